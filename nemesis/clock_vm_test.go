package nemesis

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/testcluster"
	"github.com/faultline/faultline/nodeclock"
)

// clockVMConfig is this test's own VM cluster (its image is the one
// cluster's VM test builds: the same packages, so one cached build).
var clockVMConfig = cluster.Config{Nodes: 3, Prefix: "fvmc", Subnet: "10.90.1.0/24",
	StateDir: "/var/lib/faultline-test-vmclock/cluster", VM: true, Packages: []string{"curl", "etcd-server"}}

// TestClockAndNetemOnVMs injects every clock mode on real Debian VMs and
// reads the landing back from the controller: a bump moves the victim by
// delta and nobody else, a strobe swings it, a skew sets the tick (and the
// clock drifts), stop-clock and HealAll (as after a SIGKILLed controller)
// set it back; then netem's reorder, duplicate and corrupt land with
// counters.
func TestClockAndNetemOnVMs(t *testing.T) {
	st := testcluster.Up(t, clockVMConfig, "qemu-system-x86_64", "qemu-img", "debootstrap", "busybox", "mkfs.ext4", "cpio", "depmod", "xz", "zstd")
	t.Logf("VM cluster: %s", st.Summary())
	pool := testcluster.Pool(t, st)
	w, err := New(Options{Pool: pool, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	invoke := func(f string, v any) map[string]any {
		t.Helper()
		start := time.Now()
		c := w.Invoke(ctx, opF(f, v))
		t.Logf("%s %v -> %s in %.1fs: landed=%v healed=%v error=%q\n  evidence %v", f, v, c.Type, time.Since(start).Seconds(), c.Extra["landed"], c.Extra["healed"], c.Error, c.Extra["evidence"])
		if c.Type != "ok" {
			t.Fatalf("%s: %s: %s", f, c.Type, c.Error)
		}
		return c.Extra
	}
	victim := []any{"n2"}
	// n1's and n3's boot times by their own wall clocks before the first
	// fault: only setting their clocks changes them.
	booted := map[string]time.Time{}
	for _, n := range []string{"n1", "n3"} {
		r, err := pool.Remote(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if booted[n], err = nodeclock.BootWall(ctx, r); err != nil {
			t.Fatal(err)
		}
	}

	// Bump +30s on n2: n2 moved by 30 s, n1 and n3 did not.
	ex := invoke("start-clock", map[string]any{"nodes": victim, "mode": "bump", "delta": "30s"})
	if ex["landed"] != true {
		t.Errorf("bump did not land: %v", ex["evidence"])
	}
	ev := ex["evidence"].(map[string]any)
	for _, n := range []string{"n1", "n2", "n3"} {
		e := ev[n].(map[string]any)
		moved := e["moved_ms"].(float64)
		if n == "n2" && (moved < 29900 || moved > 30100) || n != "n2" && (moved < -100 || moved > 100) {
			t.Errorf("%s moved %.1f ms after a +30s bump of n2", n, moved)
		}
	}
	ex = invoke("stop-clock", nil)
	if ex["healed"] != true || ex["landed"] != true {
		t.Errorf("stop-clock after bump: healed %v held %v", ex["healed"], ex["landed"])
	}

	// Strobe ±2s every 1s on n2: both levels seen.
	ex = invoke("start-clock", map[string]any{"nodes": victim, "mode": "strobe", "delta": "2s", "period": "1s"})
	if ex["landed"] != true {
		t.Errorf("strobe did not land: %v", ex["evidence"])
	}
	ex = invoke("stop-clock", nil)
	if ex["healed"] != true {
		t.Errorf("stop-clock after strobe: %v", ex)
	}
	if out := runOn(t, pool, "n2", "pgrep -f '[f]aultline-strobe' || true"); strings.TrimSpace(out) != "" {
		t.Errorf("strobe loop still running on n2 after stop-clock: %s", out)
	}

	// Skew: n2's clock runs 10% fast; after a few seconds it has drifted.
	ex = invoke("start-clock", map[string]any{"nodes": victim, "mode": "skew", "rate": 1.1})
	if ex["landed"] != true {
		t.Errorf("skew did not land: %v", ex["evidence"])
	}
	before, err := w.offsets(ctx, []string{"n2"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)
	after, err := w.offsets(ctx, []string{"n2"})
	if err != nil {
		t.Fatal(err)
	}
	drift := after["n2"].Offset - before["n2"].Offset
	t.Logf("n2 drifted %s in 5s at rate 1.1", drift)
	if drift < 300*time.Millisecond || drift > 700*time.Millisecond {
		t.Errorf("n2 drifted %s in 5s at rate 1.1, want about 500ms", drift)
	}

	// A controller that dies here leaves the skew: HealAll resets it.
	rep, err := HealAll(ctx, pool)
	t.Logf("heal: %v", rep)
	if err != nil {
		t.Fatalf("heal: %v", err)
	}
	if !strings.Contains(fmt.Sprint(rep["n2"]), "clock reset") || strings.Contains(fmt.Sprint(rep["n1"]), "clock") {
		t.Errorf("heal report %v: want n2's clock reset and nothing on n1", rep)
	}
	if tick := strings.TrimSpace(runOn(t, pool, "n2", "perl -e 'my $t = \"\\0\" x 208; syscall(159, $t); print unpack(\"q\", substr($t, 88, 8))'")); tick != "10000" {
		t.Errorf("n2's tick after heal: %s, want 10000", tick)
	}
	final, err := w.offsets(ctx, []string{"n1", "n2", "n3"})
	if err != nil {
		t.Fatal(err)
	}
	for n, o := range final {
		if n == "n2" {
			if absDur(o.Offset) > o.Bound+100*time.Millisecond {
				t.Errorf("n2 offset %s after heal", o)
			}
			continue
		}
		// Never a victim: its wall clock was not set, whatever the
		// controller's clock or the host did meanwhile.
		r, err := pool.Remote(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := nodeclock.BootWall(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if shift := b.Sub(booted[n]); absDur(shift) > 50*time.Millisecond {
			t.Errorf("%s's wall clock was set by %s since the first fault (offset now %s)", n, shift, o)
		}
	}

	// Reset as a mode: a bumped clock goes back to the controller's time.
	invoke("start-clock", map[string]any{"nodes": victim, "mode": "bump", "delta": "-10s"})
	ex = invoke("start-clock", map[string]any{"nodes": victim, "mode": "reset"})
	if ex["landed"] != true {
		t.Errorf("reset did not land: %v", ex["evidence"])
	}
	invoke("stop-clock", nil)

	// netem's reorder, duplicate and corrupt on n2's cluster interface:
	// read back with every parameter, counted by tc -s, n3 untouched.
	ex = invoke("start-netem", map[string]any{"nodes": victim, "delay": "10ms", "reorder": 0.5, "duplicate": 0.2, "corrupt": 0.1})
	if ex["landed"] != true {
		t.Errorf("netem did not land: %v", ex["evidence"])
	}
	ping := runOn(t, pool, "n2", "ping -c 60 -i 0.02 -W 2 -q n3 || true")
	t.Logf("n2 -> n3 under netem: %s", ping)
	if !regexp.MustCompile(`\+\d+ duplicates`).MatchString(ping) {
		t.Errorf("no duplicated replies with 20%% duplication on 60 pings: %s", ping)
	}
	if qd := runOn(t, pool, "n3", "tc qdisc show"); strings.Contains(qd, "netem") {
		t.Errorf("n3 got n2's netem: %s", qd)
	}
	ex = invoke("stop-netem", nil)
	if ex["healed"] != true || ex["landed"] != true {
		t.Errorf("stop-netem: healed %v held %v", ex["healed"], ex["landed"])
	}
	if eff, _ := ex["effect"].(int64); eff < 60 {
		t.Errorf("netem passed %v packets, want at least the 60 pings", ex["effect"])
	}

	// A delay alone is judged by the round trips it adds, measured from the
	// victim to the controller before and under it.
	ex = invoke("start-netem", map[string]any{"nodes": victim, "delay": "40ms"})
	ev, _ = ex["evidence"].(map[string]any)
	n2, _ := ev["n2"].(map[string]any)
	t.Logf("n2 round trips to the controller: %v before, %v under a 40ms netem delay", n2["rtt_before"], n2["rtt_during"])
	if ex["landed"] != true || n2["rtt_during"] == nil {
		t.Errorf("a 40ms delay did not land by its round trips: %v", ev)
	}
	invoke("stop-netem", nil)
	noFaultlineLeft(t, pool)
}

func runOn(t *testing.T, pool interface {
	Remote(context.Context, string) (control.Remote, error)
}, node, cmd string) string {
	t.Helper()
	r, err := pool.Remote(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), control.Cmd{Raw: cmd, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("%s: %s: %v", node, cmd, err)
	}
	return string(res.Stdout)
}
