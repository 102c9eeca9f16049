package nodeclock

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSample(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name        string
		rtt, behind time.Duration // behind: node clock minus controller
		wantBound   time.Duration
	}{
		{"in sync", 100 * time.Millisecond, 0, 50 * time.Millisecond},
		{"ahead", 20 * time.Millisecond, 30 * time.Second, 10 * time.Millisecond},
		{"behind", 2 * time.Millisecond, -1500 * time.Millisecond, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t1 := t0.Add(tc.rtt)
			node := t0.Add(tc.rtt / 2).Add(tc.behind) // read exactly at the midpoint
			o := sample(t0, t1, node)
			if o.Offset != tc.behind || o.Bound != tc.wantBound {
				t.Errorf("sample = %+v, want offset %s bound %s", o, tc.behind, tc.wantBound)
			}
		})
	}
}

// TestMoved: a node's movement is its change in offset, except for what a
// step of the controller's own wall clock explains.
func TestMoved(t *testing.T) {
	at := time.Unix(1000, 0)
	before := Offset{Offset: 20 * time.Millisecond, At: at, Mono: time.Minute}
	for _, tc := range []struct {
		name      string
		offset    time.Duration // the second measurement's offset
		wall      time.Duration // controller wall time elapsed between them
		mono      time.Duration // controller monotonic time elapsed
		wantMoved time.Duration
	}{
		{"still", 20 * time.Millisecond, 10 * time.Second, 10 * time.Second, 0},
		{"bumped +5s", 5020 * time.Millisecond, 10 * time.Second, 10 * time.Second, 5 * time.Second},
		{"controller stepped +8s", -7980 * time.Millisecond, 18 * time.Second, 10 * time.Second, 0},
		{"controller stepped -2s, node bumped +1s", 3020 * time.Millisecond, 8 * time.Second, 10 * time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := Offset{Offset: tc.offset, At: at.Add(tc.wall), Mono: before.Mono + tc.mono}
			if got := after.Moved(before); got != tc.wantMoved {
				t.Errorf("Moved = %s, want %s", got, tc.wantMoved)
			}
			if got, want := after.ControllerStep(before), tc.wall-tc.mono; got != want {
				t.Errorf("ControllerStep = %s, want %s", got, want)
			}
		})
	}
}

func TestParseBootWall(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "1764648000.123456 42.17\n", want: time.Unix(1764647957, 953456000)},
		{in: "1764648000,500000 0.50", want: time.Unix(1764648000, 0)},
		{in: "1764648000.123456", bad: true},
		{in: "1764648000.123456 up", bad: true},
		{in: "1764648000.123456 -1.00", bad: true},
		{in: "soon 42.17", bad: true},
	} {
		got, err := parseBootWall(tc.in)
		if tc.bad != (err != nil) || !tc.bad && got.Sub(tc.want).Abs() > time.Microsecond {
			t.Errorf("parseBootWall(%q) = %v, %v; want %v (bad %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestParseNanos(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1764648000123456789\n", 1764648000123456789, true},
		{"1764648000N\n", 0, false}, // busybox date without %N
		{"", 0, false},
		{"12\n", 0, false},
	} {
		got, err := parseNanos([]byte(tc.in))
		if (err == nil) != tc.ok || (tc.ok && got.UnixNano() != tc.want) {
			t.Errorf("parseNanos(%q) = %v, %v; want %d ok=%v", tc.in, got.UnixNano(), err, tc.want, tc.ok)
		}
	}
}

func TestParseEpochRealtime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1764648000.123456\n", 1764648000123456000, true},
		{"1764648000,000001", 1764648000000001000, true}, // a locale with a decimal comma
		{"1764648000", 0, false},
		{"1764648000.12", 0, false},
		{"$EPOCHREALTIME", 0, false}, // not bash
	} {
		got, err := parseEpochRealtime(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got.UnixNano() != tc.want) {
			t.Errorf("parseEpochRealtime(%q) = %v, %v; want %d ok=%v", tc.in, got.UnixNano(), err, tc.want, tc.ok)
		}
	}
}

// TestShiftScript runs the shift command in its dry mode on this host
// (same sh and perl-base as a Debian node) and checks the time it would set.
func TestShiftScript(t *testing.T) {
	for _, delta := range []time.Duration{30 * time.Second, -1500 * time.Millisecond, 0} {
		argv := append(ShiftArgv(delta), "dry")
		before := time.Now()
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		after := time.Now()
		if err != nil {
			t.Fatalf("shift script: %v", err)
		}
		set, err := parseEpochRealtime(string(out))
		if err != nil {
			t.Fatalf("shift script printed %q: %v", out, err)
		}
		lo, hi := before.Add(delta).Add(-time.Millisecond), after.Add(delta).Add(time.Millisecond)
		if set.Before(lo) || set.After(hi) {
			t.Errorf("delta %s: would set %s, want within [%s, %s]", delta, set, lo, hi)
		}
	}
}

func TestOffsetString(t *testing.T) {
	o := Offset{Offset: -30012345 * time.Microsecond, Bound: 480 * time.Microsecond}
	if got, want := o.String(), "-30.0123s ±500µs"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestRateTick(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		tick int
		ok   bool
	}{
		{1, 10000, true}, {1.05, 10500, true}, {0.9, 9000, true}, {1.1, 11000, true}, {1.2, 12000, false}, {0.5, 5000, false},
	} {
		tick, ok := RateTick(tc.rate)
		if tick != tc.tick || ok != tc.ok {
			t.Errorf("RateTick(%v) = %d, %v; want %d, %v", tc.rate, tick, ok, tc.tick, tc.ok)
		}
	}
}

// TestReadTick reads this host's tick with the same script a node runs
// (reading needs no privilege).
func TestReadTick(t *testing.T) {
	argv := ReadTickArgv()
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("read tick: %v: %s", err, out)
	}
	if tick, err := strconv.Atoi(strings.TrimSpace(string(out))); err != nil || tick < 9000 || tick > 11000 {
		t.Errorf("tick %q, want 9000..11000", out)
	}
}
