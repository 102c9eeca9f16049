package nemesis

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
)

// File corruption lands on the node's file and says so from the file read
// back: truncate cuts it to the size asked, bitflip changes exactly one bit.
func TestCorruptFile(t *testing.T) {
	root := t.TempDir()
	pool, sup, err := control.NewLocalPool(root, []string{"n1"})
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	file := filepath.Join(root, "n1", "data.log")
	orig := bytes.Repeat([]byte("faultline"), 100)
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := New(Options{Pool: pool, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	got := w.Invoke(ctx, history.Op{F: "bitflip-file", Value: map[string]any{"nodes": "all", "path": "data.log", "offset": int64(5), "bit": int64(3)}})
	if got.Type != history.OK || got.Extra["landed"] != true {
		t.Fatalf("bitflip: %+v", got)
	}
	now, _ := os.ReadFile(file)
	diff := 0
	for i := range now {
		if now[i] != orig[i] {
			diff++
			if i != 5 || now[i]^orig[i] != 1<<3 {
				t.Errorf("byte %d: %08b, was %08b; want only bit 3 of byte 5 flipped", i, now[i], orig[i])
			}
		}
	}
	if diff != 1 || len(now) != len(orig) {
		t.Errorf("bitflip changed %d bytes (len %d -> %d), want 1", diff, len(orig), len(now))
	}

	got = w.Invoke(ctx, history.Op{F: "truncate-file", Value: map[string]any{"nodes": "all", "path": "data.log", "size": int64(100)}})
	if got.Type != history.OK || got.Extra["landed"] != true {
		t.Fatalf("truncate: %+v", got)
	}
	if st, _ := os.Stat(file); st.Size() != 100 {
		t.Errorf("size after truncate %d, want 100", st.Size())
	}
	ev := got.Extra["evidence"].(map[string]any)["n1"].(map[string]any)
	if ev["before"] == ev["after"] {
		t.Errorf("evidence shows no change: %v", ev)
	}

	// A file that is not there: the fault fails, and says it did not land.
	got = w.Invoke(ctx, history.Op{F: "truncate-file", Value: map[string]any{"nodes": "all", "path": "missing.log"}})
	if got.Type == history.OK || got.Extra["landed"] == true {
		t.Errorf("truncating a missing file: %+v", got)
	}
}
