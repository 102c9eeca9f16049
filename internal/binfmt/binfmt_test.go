package binfmt

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

func TestFrames(t *testing.T) {
	for _, prefix := range []string{">I", "<H", "B", "uvarint", ">q"} {
		pf, err := Prefix(prefix)
		if err != nil {
			t.Fatalf("%s: %v", prefix, err)
		}
		var buf []byte
		for _, p := range []string{"", "a", strings.Repeat("x", 200)} {
			if buf, err = AppendFrame(buf, pf, []byte(p)); err != nil {
				t.Fatalf("%s: %v", prefix, err)
			}
		}
		r := bufio.NewReader(bytes.NewReader(buf))
		for _, want := range []string{"", "a", strings.Repeat("x", 200)} {
			got, _, err := ReadFrame(r, pf, 1<<20)
			if err != nil || string(got) != want {
				t.Fatalf("%s: frame %q, %v; want %q", prefix, got, err, want)
			}
		}
		if _, n, err := ReadFrame(r, pf, 1<<20); !errors.Is(err, io.EOF) || n != 0 {
			t.Errorf("%s: after the last frame: %d bytes, %v; want a clean EOF", prefix, n, err)
		}
	}
	pf, _ := Prefix(">I")
	torn := bufio.NewReader(bytes.NewReader([]byte{0, 0, 0, 5, 'a', 'b'}))
	if _, n, err := ReadFrame(torn, pf, 100); !errors.Is(err, io.ErrUnexpectedEOF) || n != 6 {
		t.Errorf("torn frame: %d bytes, %v; want 6 and ErrUnexpectedEOF", n, err)
	}
	big := bufio.NewReader(bytes.NewReader([]byte{0, 0, 1, 0}))
	if _, _, err := ReadFrame(big, pf, 255); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("frame over max: %v", err)
	}
	neg, _ := Prefix(">i")
	if _, _, err := ReadFrame(bufio.NewReader(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff})), neg, 255); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative length: %v", err)
	}
}

func TestZigzag(t *testing.T) {
	for _, n := range []int64{0, -1, 1, -2, 63, -64, math.MaxInt64, math.MinInt64} {
		if got := Unzigzag(Zigzag(n)); got != n {
			t.Errorf("Unzigzag(Zigzag(%d)) = %d", n, got)
		}
	}
	if Zigzag(-1) != 1 || Zigzag(1) != 2 {
		t.Errorf("Zigzag(-1), Zigzag(1) = %d, %d; want 1, 2", Zigzag(-1), Zigzag(1))
	}
}
