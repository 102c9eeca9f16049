package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/nodeclock"
)

// Clock faults move the victims' wall clocks (nemesis.clock): bump by
// delta, strobe (jump +delta and back every period until stopped), skew
// (the kernel's tick: the clock runs at rate times true time) or reset (to
// the controller's time). Landing is read from the controller: every node's
// offset is measured (nodeclock: a round trip, so each offset is true
// within its bound) before and after, the victims must have moved as asked
// and the others not. stop-clock, the final heal and faultline heal stop
// any strobe, restore the tick and set the victims' clocks back to the
// controller's. Nodes sharing a kernel (netns or local nodes, or a node
// on the controller's own kernel) are refused: a clock change there would
// move every one of them, and the controller's clock too.

// clockSlack is what a clock may drift or a step may lose between two
// measurements beyond their bounds: the set itself takes a few
// microseconds (one perl process reads and sets), the rest is margin for an
// emulated node's scheduling.
const clockSlack = 50 * time.Millisecond

func init() {
	register(Fault{
		Name: "clock", Inject: "start-clock", End: "stop-clock",
		Landing: "each victim's clock offset from the controller (measured over a round trip, with its bound) moved by delta (bump), " +
			"seen at both levels (strobe), the tick read back (skew) or near zero (reset); every other node's offset unchanged",
		Needs:    []string{"clock", "root"},
		Evidence: &Decl{Kind: "landed", Min: 1},
		// Last in rank: a clause that names another fault and mentions a
		// clock ("kill -9 the leader, timed on the monotonic clock") stays
		// that fault. The plan compiler reads the mode and its parameters
		// (plans/compile_faultparams.go).
		Plan: &PlanPhrases{Phrases: "clock skew, clock bump +Ns, clock jump back Ns, clock strobe, clock drift, time drift at rate 1.1, clock reset",
			Target: "nodes", Rank: 50, Match: regexp.MustCompile(`(?i)\bclocks?\b|\btime[- ](?:drift\w*|jumps?|skew\w*|shifts?|warp\w*)`)},
		Validate: func(v any) error { _, err := parseClockSpec(v); return err },
		inject:   func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.startClock(ctx, v) },
		end:      func(w *Worker, ctx context.Context, _ any) (outcome, error) { return w.stopClock(ctx) },
	})
}

// clockSpec is the value of a start-clock op.
type clockSpec struct {
	nodes  any
	mode   string        // bump, strobe, skew, reset
	delta  time.Duration // bump and strobe
	period time.Duration // strobe
	rate   float64       // skew
}

func parseClockSpec(v any) (clockSpec, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return clockSpec{}, fmt.Errorf("clock: want {nodes, mode, ...}, got %T", v)
	}
	s := clockSpec{nodes: m["nodes"], mode: fmt.Sprint(m["mode"])}
	if s.nodes == nil {
		s.nodes = "one"
	}
	dur := func(key string) (time.Duration, error) {
		str, _ := m[key].(string)
		d, err := time.ParseDuration(str)
		if err != nil {
			return 0, fmt.Errorf("clock %s: %s %q: want a duration such as \"30s\" or \"-2s\"", s.mode, key, str)
		}
		return d, nil
	}
	var err error
	switch s.mode {
	case "bump":
		if s.delta, err = dur("delta"); err != nil {
			return s, err
		}
		if s.delta == 0 {
			return s, errors.New("clock bump: delta must not be 0")
		}
	case "strobe":
		if s.delta, err = dur("delta"); err != nil {
			return s, err
		}
		if s.period, err = dur("period"); err != nil {
			return s, err
		}
		if s.delta == 0 || s.period < 100*time.Millisecond {
			return s, fmt.Errorf("clock strobe: want a non-zero delta and a period of at least 100ms, got %s and %s", s.delta, s.period)
		}
	case "skew":
		switch r := m["rate"].(type) {
		case float64:
			s.rate = r
		case int64:
			s.rate = float64(r)
		case int:
			s.rate = float64(r)
		}
		if _, ok := nodeclock.RateTick(s.rate); !ok || s.rate == 1 {
			return s, fmt.Errorf("clock skew: rate %v: want the clock's speed from 0.9 to 1.1 (the kernel's tick limits), not 1", m["rate"])
		}
	case "reset":
	default:
		return s, fmt.Errorf("clock: mode %q: want \"bump\", \"strobe\", \"skew\" or \"reset\"", s.mode)
	}
	return s, nil
}

// clockState records a clock fault in the node's state file, so stop-clock
// and any later heal find it: "clock MODE", and "strobe PID" for the loop.
const clockNoteScript = stateLib + `note clock "$1"`

// strobeScript starts, detached, a loop that jumps the clock by $2 µs and
// back every $3 seconds with nodeclock's shift script ($1), and records
// its pid.
const strobeScript = stateLib + `setsid sh -c 'while :; do sh -c "$1" shift "$2" || exit 1; sleep "$3"; sh -c "$1" shift "-$2" || exit 1; sleep "$3"; done' faultline-strobe "$1" "$2" "$3" </dev/null >/dev/null 2>&1 &
note strobe $!
note clock strobe
echo "strobe $!"`

// stopClockScript stops strobes (the loop leads its own process group, so
// the group goes, a shift in progress with it) and restores the tick on a
// node whose state
// file records a clock fault, printing "clock" when it did so (the
// controller then resets the node's clock), else nothing.
var stopClockScript = stateLib + `[ -f "$state" ] || exit 0
grep -q '^clock ' "$state" || exit 0
for p in $(awk '$1 == "strobe" { print $2 }' "$state"); do kill -- "-$p" 2>/dev/null; forget strobe "$p"; done
grep -v '^clock ' "$state" >"$state.new"; mv "$state.new" "$state"
[ -s "$state" ] || rm -f "$state"
` + resetTickShell + `
echo clock`

// resetTickShell sets the tick back to normal in a subshell (the tick
// script ends in exec), for the heal scripts.
var resetTickShell = "( set -- " + strconv.Itoa(nodeclock.NormalTick) + "\n" + tickBody() + "\n) >/dev/null"

func tickBody() string {
	argv := nodeclock.TickArgv(nodeclock.NormalTick)
	return argv[2]
}

// startClock injects a clock fault (see the package comment above).
func (w *Worker) startClock(ctx context.Context, v any) (outcome, error) {
	spec, err := parseClockSpec(v)
	if err != nil {
		return outcome{value: v}, err
	}
	targets, err := w.targets(ctx, "clock", spec.nodes)
	if err != nil {
		return outcome{value: v}, err
	}
	value := map[string]any{"nodes": strs(targets), "mode": spec.mode}
	if refuse, err := w.sharedKernel(ctx, value); refuse != nil {
		return *refuse, err
	}
	before, err := w.offsets(ctx, w.nodes)
	if err != nil {
		return outcome{value: value}, err
	}
	ev := map[string]any{}
	landed := true
	note := func(node string, r control.Remote, mode string) error {
		_, err := runScript(ctx, r, "note clock fault", clockNoteScript, mode)
		return err
	}
	stepEv, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		switch spec.mode {
		case "bump":
			value["delta"] = spec.delta.String()
			if err := note(node, r, "bump"); err != nil {
				return nil, err
			}
			return nil, nodeclock.Shift(ctx, r, spec.delta)
		case "strobe":
			value["delta"], value["period"] = spec.delta.String(), spec.period.String()
			out, err := runScript(ctx, r, "start clock strobe", strobeScript, nodeclock.ShiftScript,
				strconv.FormatInt(spec.delta.Microseconds(), 10), strconv.FormatFloat(spec.period.Seconds(), 'f', 3, 64))
			return strings.TrimSpace(out), err
		case "skew":
			value["rate"] = spec.rate
			if err := note(node, r, "skew"); err != nil {
				return nil, err
			}
			tick, _ := nodeclock.RateTick(spec.rate)
			res, err := r.Run(ctx, control.Cmd{Argv: nodeclock.TickArgv(tick), Timeout: time.Minute, Label: "skew clock"})
			if err != nil {
				return nil, err
			}
			got := strings.TrimSpace(string(res.Stdout))
			return map[string]any{"tick": got, "want_tick": tick}, nil
		default: // reset
			n, _ := w.opts.Pool.Node(node)
			o, err := nodeclock.Sync(ctx, r, n.Host, 5*time.Millisecond, 5)
			return map[string]any{"reset_to": offsetEv(o)}, err
		}
	})
	if err != nil {
		return outcome{value: value, evidence: stepEv, applied: true}, fmt.Errorf("clock %s: %w", spec.mode, err)
	}
	after, err := w.offsets(ctx, w.nodes)
	if err != nil {
		return outcome{value: value, applied: true}, err
	}
	if spec.mode == "strobe" {
		// Sample across two periods: a strobing clock is seen at both levels.
		samples := []map[string]nodeclock.Offset{after}
		for k := 0; k < 4; k++ {
			time.Sleep(spec.period / 2)
			s, err := w.offsets(ctx, targets)
			if err != nil {
				return outcome{value: value, applied: true}, err
			}
			samples = append(samples, s)
		}
		for _, n := range targets {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, s := range samples {
				d := float64(s[n].Moved(before[n]))
				lo, hi = min(lo, d), max(hi, d)
			}
			seen := time.Duration(hi - lo)
			ok := absDur(seen-absDur(spec.delta)) <= 2*clockSlack+before[n].Bound
			landed = landed && ok
			ev[n] = map[string]any{"before": offsetEv(before[n]), "swing_ms": ms(seen), "want_swing_ms": ms(absDur(spec.delta)), "strobe": stepEv[n], "moved": ok}
		}
	}
	for _, n := range w.nodes {
		victim := slices.Contains(targets, n)
		if victim && spec.mode == "strobe" {
			continue
		}
		moved := after[n].Moved(before[n])
		tol := before[n].Bound + after[n].Bound + clockSlack
		var ok bool
		switch {
		case !victim:
			ok = absDur(moved) <= tol
		case spec.mode == "skew":
			// The tick changed somewhere between the two measurements, so
			// the clock gained between nothing and (rate-1) times their
			// distance; the tick read back is the main evidence.
			most := time.Duration((spec.rate - 1) * float64(after[n].At.Sub(before[n].At)))
			ok = moved >= min(0, most)-tol && moved <= max(0, most)+tol
		case spec.mode == "bump":
			ok = absDur(moved-spec.delta) <= tol
		default: // reset
			ok = absDur(after[n].Offset) <= after[n].Bound+clockSlack
		}
		e := map[string]any{"before": offsetEv(before[n]), "after": offsetEv(after[n]), "moved_ms": ms(moved), "victim": victim}
		if step := after[n].ControllerStep(before[n]); absDur(step) > time.Millisecond {
			e["controller_step_ms"] = ms(step) // the controller's own clock was set meanwhile
		}
		if victim && spec.mode == "skew" {
			se, _ := stepEv[n].(map[string]any)
			e["tick"] = se
			ok = ok && fmt.Sprint(se["tick"]) == fmt.Sprint(se["want_tick"])
		}
		if victim && spec.mode == "bump" {
			e["want_ms"] = ms(spec.delta)
		}
		e["as_expected"] = ok
		landed = landed && ok
		ev[n] = e
	}
	return outcome{value: value, evidence: ev, landed: landed}, nil
}

// stopClock ends every clock fault: strobes stopped, ticks restored and the
// clocks of the nodes that had one set back to the controller's, read back.
func (w *Worker) stopClock(ctx context.Context) (outcome, error) {
	ev, err := w.eachNode(ctx, w.nodes, func(node string, r control.Remote) (any, error) {
		reset, o, err := resetClock(ctx, w.opts.Pool, node, r)
		if err != nil || !reset {
			return nil, err
		}
		return map[string]any{"reset_to": offsetEv(o), "healed": absDur(o.Offset) <= o.Bound+clockSlack}, nil
	})
	healed := err == nil
	var victims []string
	for n, e := range ev {
		victims = append(victims, n)
		m, _ := e.(map[string]any)
		healed = healed && m["healed"] == true
	}
	slices.Sort(victims)
	// Landed (held): some node still had the fault recorded when it ended.
	return outcome{value: map[string]any{"nodes": strs(victims)}, evidence: ev, landed: len(victims) > 0, healed: &healed}, err
}

// resetClock undoes a node's recorded clock fault: strobe stopped, tick
// restored, clock synced to the controller's. reset is false when the node
// had none.
func resetClock(ctx context.Context, pool *control.Pool, node string, r control.Remote) (reset bool, o nodeclock.Offset, err error) {
	out, err := runScript(ctx, r, "stop clock faults", stopClockScript)
	if err != nil {
		return false, o, err
	}
	if strings.TrimSpace(out) != "clock" {
		return false, o, nil
	}
	n, _ := pool.Node(node)
	o, err = nodeclock.Sync(ctx, r, n.Host, 5*time.Millisecond, 5)
	if err != nil {
		return true, o, fmt.Errorf("reset clock of %s: %w", node, err)
	}
	return true, o, nil
}

// sharedKernel refuses clock faults where two nodes, or a node and the
// controller, run on one kernel (equal boot ids): nil when each node has
// its own.
func (w *Worker) sharedKernel(ctx context.Context, value any) (*outcome, error) {
	caps, err := Capabilities(ctx, w.opts.Pool, w.nodes)
	if err != nil {
		return &outcome{value: value}, err
	}
	self, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	mine := strings.TrimSpace(string(self))
	byBoot := map[string][]string{}
	for n, c := range caps {
		byBoot[c.BootID] = append(byBoot[c.BootID], n)
	}
	for id, nodes := range byBoot {
		slices.Sort(nodes)
		switch {
		case id == mine:
			o, err := missingCapability(value, caps, fmt.Sprintf("nodes %s run on the controller's own kernel (boot id %s): a clock fault would move the controller's clock too; clock faults need nodes with their own kernels (faultline cluster up --vm)", strings.Join(nodes, ", "), id))
			return &o, err
		case len(nodes) > 1:
			o, err := missingCapability(value, caps, fmt.Sprintf("nodes %s share one kernel (boot id %s), so their clocks cannot differ", strings.Join(nodes, ", "), id))
			return &o, err
		}
	}
	return nil, nil
}

// offsets measures every given node's clock offset from the controller.
func (w *Worker) offsets(ctx context.Context, nodes []string) (map[string]nodeclock.Offset, error) {
	ev, err := w.eachNode(ctx, nodes, func(node string, r control.Remote) (any, error) {
		n, _ := w.opts.Pool.Node(node)
		return nodeclock.Measure(ctx, r, n.Host, 3)
	})
	out := make(map[string]nodeclock.Offset, len(ev))
	for n, e := range ev {
		out[n] = e.(nodeclock.Offset)
	}
	if err != nil {
		return out, fmt.Errorf("measure clocks: %w", err)
	}
	return out, nil
}

func offsetEv(o nodeclock.Offset) map[string]any {
	return map[string]any{"offset_ms": ms(o.Offset), "bound_ms": ms(o.Bound)}
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/float64(time.Microsecond)) / 1000 }

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
