package nemesis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/history"
)

// Decl is one evidence declaration: a signal a scenario requires to see,
// judged after the run from the recorded history by Evaluate.
//
//	landed          every fault op read back as in effect (and there was one)
//	iptables_drops  at least Min packets counted by faultline's DROP rules
//	op_errors       at least Min client ops failing or timing out (DuringFault: during a fault)
//	process_state   at least Min processes read back from /proc in State ("gone" for killed)
type Decl struct {
	Kind        string // landed, iptables_drops, op_errors, process_state
	Min         int64
	DuringFault bool
	State       string
}

// String is the declaration as a scenario writes it.
func (d *Decl) String() string {
	switch d.Kind {
	case "landed":
		return "evidence.landed()"
	case "op_errors":
		return fmt.Sprintf("evidence.op_errors(during_fault=%v, min=%d)", d.DuringFault, d.Min)
	case "process_state":
		return fmt.Sprintf("evidence.process_state(state=%q, min=%d)", d.State, d.Min)
	}
	return fmt.Sprintf("evidence.%s(min=%d)", d.Kind, d.Min)
}

// Finding is the judgement of one declaration.
type Finding struct {
	Decl     string `json:"decl"`
	Pass     bool   `json:"pass"`
	Evidence string `json:"evidence"`
}

// Window is one fault's time in effect, whether its effect was proven, and
// what clients saw meanwhile.
//
// Landed is the inject completion's read-back: the rule, qdisc, table or
// process state was in effect right after the injection. That is
// configuration, not effect. Proven is the window's landing, judged when
// it closes: for a network fault the rule was still in place at the heal
// (Held) and its counters show it acted on traffic (Effect > 0); for a
// process or disk fault the victim-side read-back after inject (/proc
// states, the fill file) and, when read, that it still held at the end.
type Window struct {
	Fault  string `json:"fault"`  // the op that opened it (start-partition, kill, ...)
	Landed bool   `json:"landed"` // its completion's read-back verdict
	// Shape is a partition's shape (PartitionShape of the grudge it put
	// in effect); "" for other faults.
	Shape string `json:"shape,omitempty"`
	// Victims are the nodes the fault acted on, as its completion recorded
	// them (the nodes it resolved, else the nodes it read evidence from);
	// none for a partition, whose Shape says more.
	Victims []string `json:"victims,omitempty"`
	Start   int64    `json:"start"` // time of that completion
	End     int64    `json:"end"`   // time the closing op was invoked; -1 if none was
	// Held is what the closing op read back: was the fault still in effect
	// when its hold ended (nil: nothing was read back)?
	Held *bool `json:"held,omitempty"`
	// Effect is what the closing op counted the fault doing to traffic
	// during the window (drops, delayed packets, throttling; see outcome);
	// nil when nothing was counted.
	Effect *int64 `json:"effect,omitempty"`
	// Healed is what the closing op read back of the fault's removal: did
	// its stop (or the final heal) leave it gone? nil: nothing recorded.
	// A stop that failed did not show it gone: false.
	Healed *bool `json:"healed,omitempty"`
	// HealNote says why Healed is false, as the closing op recorded it
	// (a script's stop that left the fault in effect on a victim, a stop
	// that failed).
	HealNote string `json:"heal_note,omitempty"`
	// Note is what the inject recorded of a read-back that fell short (a
	// victim a script's verify did not show, evidence for a node that is
	// not a victim), for the reason.
	Note string `json:"note,omitempty"`
	// OneShot says why the fault has no end (file corruption, a script
	// fault with neither stop nor heal): its window opens and closes at its
	// inject, it is judged by its landing alone, and there is nothing to
	// hold or heal.
	OneShot string `json:"one_shot,omitempty"`
	// Probe is the part of Effect that faultline's own probe traffic made:
	// the closing op sent it through the faulted links because the
	// system's own traffic had not crossed them during the hold. nil when
	// no probe was sent (the system's traffic proved the fault, or the
	// history predates probes).
	Probe *int64 `json:"probe,omitempty"`
	// PeerTraffic is what a partition's end on the proxy mesh counted of
	// the system's own connections over the cut links, before and during
	// the fault, or why there were none (see peerTraffic); "" elsewhere.
	PeerTraffic string `json:"peer_traffic,omitempty"`
	Proven      bool   `json:"proven"`
	Reason      string `json:"reason"` // why Proven is what it is, in words for the report
	// Client completions in the window, by type. ClientFail leaves out
	// definite failures that are ordinary business outcomes (a cas whose
	// expected value did not match, insufficient funds), counted in
	// ClientRefused: a healthy system gives those too, so they are no sign
	// the fault reached the clients.
	ClientOK      int `json:"client_ok"`
	ClientFail    int `json:"client_fail"`
	ClientInfo    int `json:"client_info"`
	ClientRefused int `json:"client_refused"`
}

// judge decides whether w's effect was proven, with the reason.
func (w *Window) judge() {
	span := "still open at the end of the history"
	if w.End >= 0 {
		span = "held " + time.Duration(max(w.End-w.Start, 0)).Round(time.Millisecond).String()
	}
	f, _ := ByOp(w.Fault)
	what, network := f.Effect, f.Network
	switch {
	case !w.Landed && f.FromScript && w.Note != "":
		w.Reason = "the script's verify(nodes) did not show the fault on every victim after inject: " + w.Note
	case !w.Landed && f.FromScript:
		w.Reason = "the script's verify(nodes) returned no evidence from the victims after inject (None or empty, or the fault defines no verify)"
	case !w.Landed:
		w.Reason = "the read-back on the victims after inject did not show the fault in effect"
	case w.Held != nil && !*w.Held:
		w.Reason = "gone before the hold ended (reverted or bypassed behind faultline's back; " + span + ")"
	case f.FromScript:
		w.Proven = true
		w.Reason = "the script's verify read evidence back from every victim after inject"
		if w.Held != nil {
			w.Reason += " and again when the hold ended"
		}
	case !network:
		w.Proven = true
		w.Reason = "read back on the victims after inject (process state, fill file)"
		if w.Held != nil {
			w.Reason += " and still in effect when the hold ended"
		}
	case w.End < 0 || w.Held == nil:
		w.Reason = "its effect was never read back: no stop or heal read the victims (" + span + ")"
	case w.Effect == nil:
		w.Reason = "the stop read back no effect counters (" + span + ")"
	case *w.Effect == 0 && w.Probe != nil:
		w.Reason = fmt.Sprintf("0 %s, %s: neither the system's traffic nor faultline's probe through the faulted links met the fault", what, span)
	case *w.Effect == 0:
		w.Reason = fmt.Sprintf("0 %s, %s: no traffic crossed the fault", what, span)
	case w.Probe != nil && *w.Probe > 0:
		w.Proven = true
		w.Reason = fmt.Sprintf("%d %s, %s (the system's own traffic: %d; faultline's probe through the faulted links: %d); still in place at the heal",
			*w.Effect, what, span, max(*w.Effect-*w.Probe, 0), *w.Probe)
	default:
		w.Proven = true
		w.Reason = fmt.Sprintf("%d %s, %s, by the system's own traffic; still in place at the heal", *w.Effect, what, span)
	}
	if w.Proven && w.OneShot != "" {
		w.Reason += "; a one-shot fault: nothing to hold or heal (" + w.OneShot + ")"
	}
	if w.PeerTraffic != "" {
		w.Reason += "; " + w.PeerTraffic
	}
}

// Refused reports whether a client completion is a definite failure that
// is an ordinary business outcome: the operation was refused for a reason
// of the data, as it would be on a healthy system. Clients mark these as
// fail with no error (register and etcd cas), or with an error naming the
// mismatch or the precondition (demo_kv "cas: value did not match",
// postgres "insufficient-funds").
func Refused(op history.Op) bool {
	if op.Type != history.Fail {
		return false
	}
	if op.Error == nil {
		return true
	}
	msg := strings.ToLower(fmt.Sprint(op.Error))
	if msg == "" {
		return true
	}
	for _, s := range refusals {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// refusals are the error texts of business outcomes, as clients write them.
var refusals = []string{"did not match", "mismatch", "precondition", "insufficient-funds", "insufficient funds"}

// FaultWindows pairs each fault with the op that healed it, judges its
// landing when it closes (see Window) and counts the client completions in
// between, in history order.
func FaultWindows(ops []history.Op) []Window {
	var out []Window
	open := map[string]int{}      // fault -> index in out of its open window
	closing := map[string][]int{} // closing op -> windows it closes, until it completes
	grudges := map[int]any{}      // partition window -> the grudge it put in effect
	nodes := map[string]bool{}    // every node a client was bound to
	for _, op := range ops {
		if op.Node != "" {
			nodes[op.Node] = true
		}
		if !op.IsNemesis() {
			if op.Type == history.Invoke {
				continue
			}
			for _, i := range open {
				switch {
				case op.Type == history.OK:
					out[i].ClientOK++
				case Refused(op):
					out[i].ClientRefused++
				case op.Type == history.Fail:
					out[i].ClientFail++
				default:
					out[i].ClientInfo++
				}
			}
			continue
		}
		if op.Type == history.Invoke {
			for f, i := range open {
				if end, _ := EndOf(f); op.F == "heal" || end == op.F {
					out[i].End = op.Time
					closing[op.F] = append(closing[op.F], i)
					delete(open, f)
				}
			}
			continue
		}
		for _, i := range closing[op.F] {
			healedBy(&out[i], op)
			if op.Type == history.Fail && op.F != "heal" {
				// A failed stop's read-back is partial. A heal's per-fault
				// answers come from the stops it ran first, which succeeded
				// even when removing the rest afterwards did not.
				continue
			}
			held, ok := perFault(op.Extra["held"], out[i].Fault).(bool)
			if _, recorded := op.Extra["held"]; !recorded && op.F != "heal" {
				// A stop op's landed says the fault was still in effect
				// until it (histories recorded without "held").
				held, ok = op.Extra["landed"].(bool)
			}
			if ok {
				out[i].Held = &held
			}
			if n, ok := count(perFault(op.Extra["effect"], out[i].Fault)); ok {
				out[i].Effect = &n
			} else if n, ok := nodeDrops(op); ok {
				out[i].Effect = &n
			}
			if n, ok := count(perFault(op.Extra["effect_probe"], out[i].Fault)); ok {
				out[i].Probe = &n
			}
			if p, ok := perFault(op.Extra["peer_traffic"], out[i].Fault).(string); ok {
				out[i].PeerTraffic = p
			}
		}
		delete(closing, op.F)
		if OpensWindow(op.F) && op.Type != history.Fail {
			if _, already := open[op.F]; !already {
				open[op.F] = len(out)
				if op.F == "start-partition" {
					grudges[len(out)] = op.Value
				}
				w := Window{Fault: op.F, Landed: op.Extra["landed"] == true, Start: op.Time, End: -1, Note: noteOf(op)}
				if op.F != "start-partition" {
					w.Victims = victimsOf(op)
				}
				out = append(out, w)
			}
		}
		if f, ok := ByOp(op.F); ok && f.Inject == op.F && f.End == "" && f.NoEnd != "" && op.Type != history.Fail {
			// A fault with no end (file corruption, a script fault with
			// neither stop nor heal) is a fault all the same: its window
			// opens and closes at its inject and is judged by its landing.
			out = append(out, Window{Fault: op.F, Landed: op.Extra["landed"] == true, Start: op.Time, End: op.Time,
				Victims: victimsOf(op), Note: noteOf(op), OneShot: f.NoEnd})
		}
	}
	for i, g := range grudges {
		out[i].Shape = PartitionShape(g, slices.Sorted(maps.Keys(nodes)))
	}
	for i := range out {
		out[i].judge()
	}
	return out
}

// healedBy records on w what its closing op read back of the fault's
// removal: the op's healed (per fault for the final heal's map), false for
// a stop that failed, with the op's note or error as the reason.
func healedBy(w *Window, op history.Op) {
	h, ok := perFault(op.Extra["healed"], w.Fault).(bool)
	if op.Type == history.Fail && op.F != "heal" {
		h, ok = false, true
	}
	if !ok {
		return
	}
	w.Healed = &h
	if !h {
		w.HealNote = noteOf(op)
		switch {
		case op.Error != nil && w.HealNote != "":
			w.HealNote += fmt.Sprintf(" (%v)", op.Error)
		case op.Error != nil:
			w.HealNote = fmt.Sprintf("%s failed: %v", op.F, op.Error)
		}
		if w.HealNote == "" {
			w.HealNote = op.F + " did not read the fault back gone"
		}
	}
}

// noteOf is the note an op recorded (see outcome.note), "" for none.
func noteOf(op history.Op) string {
	n, _ := op.Extra["note"].(string)
	return n
}

// nodeDrops sums the per-node DROP counters a stop-partition or stop-loss
// recorded, for histories recorded without "effect".
func nodeDrops(op history.Op) (int64, bool) {
	if op.F != "stop-partition" && op.F != "stop-loss" {
		return 0, false
	}
	ev, _ := op.Extra["evidence"].(map[string]any)
	var total int64
	found := false
	for _, nodeEv := range ev {
		m, _ := nodeEv.(map[string]any)
		if n, ok := count(m["drops"]); ok {
			total, found = min(total+n, math.MaxInt64-1), true
		}
	}
	return total, found
}

// perFault picks fault's entry when v is the final heal's map of them.
func perFault(v any, fault string) any {
	if m, ok := v.(map[string]any); ok {
		return m[fault]
	}
	return v
}

// count reads a count as recorded (int64 in memory, float64 or another
// integer type when the history was read back from a file).
func count(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), n >= 0
	}
	return 0, false
}

// inWindow reports whether time t falls in any of the windows.
func inWindow(ws []Window, t int64) bool {
	for _, w := range ws {
		if t >= w.Start && (w.End < 0 || t < w.End) {
			return true
		}
	}
	return false
}

// Evaluate judges each declaration against a recorded history.
func Evaluate(decls []*Decl, ops []history.Op) []Finding {
	out := make([]Finding, 0, len(decls))
	for _, d := range decls {
		pass, ev := evaluate(d, ops)
		out = append(out, Finding{Decl: d.String(), Pass: pass, Evidence: ev})
	}
	return out
}

func evaluate(d *Decl, ops []history.Op) (bool, string) {
	switch d.Kind {
	case "landed":
		// Every window proven by its effect (see Window), and no fault op
		// that failed.
		var total, landed int
		var notes []string
		for _, w := range FaultWindows(ops) {
			total++
			if w.Proven {
				landed++
			} else {
				notes = append(notes, fmt.Sprintf("%s at T+%s: %s", w.Fault, time.Duration(w.Start).Round(time.Millisecond), w.Reason))
			}
		}
		for _, op := range ops {
			if op.IsNemesis() && op.Type == history.Fail && injectOp(op.F) {
				total++
				notes = append(notes, fmt.Sprintf("%s at index %d failed: %v", op.F, op.Index, op.Error))
			}
		}
		ev := fmt.Sprintf("%d of %d faults landed", landed, total)
		if len(notes) > 0 {
			ev += ": " + strings.Join(notes, "; ")
		}
		return total > 0 && landed == total, ev
	case "iptables_drops":
		// The DROP counters each window of an iptables fault (partition,
		// loss) read back when it closed, by its own stop or by the final
		// heal.
		var total int64
		var per []string
		for _, w := range FaultWindows(ops) {
			if f, _ := ByOp(w.Fault); !slices.Contains(f.Needs, "iptables") || w.Effect == nil {
				continue
			}
			total = min(total+*w.Effect, math.MaxInt64-1)
			per = append(per, fmt.Sprintf("%s at T+%s %d", w.Fault, time.Duration(w.Start).Round(time.Millisecond), *w.Effect))
		}
		return total >= d.Min, fmt.Sprintf("%d packets dropped (want >= %d): %s", total, d.Min, strings.Join(per, ", "))
	case "op_errors":
		var n int64
		var windows []Window
		if d.DuringFault {
			windows = FaultWindows(ops)
		}
		for _, op := range ops {
			// A refused op (a cas whose value did not match) is an ordinary
			// outcome, no sign of the fault.
			if !op.IsNemesis() && (op.Type == history.Fail && !Refused(op) || op.Type == history.Info) && (!d.DuringFault || inWindow(windows, op.Time)) {
				n++ // once, however many faults overlap
			}
		}
		where := "in the run"
		if d.DuringFault {
			where = "during faults"
		}
		return n >= d.Min, fmt.Sprintf("%d client ops failed or timed out %s (want >= %d)", n, where, d.Min)
	case "process_state":
		var n int64
		for _, op := range ops {
			if !op.IsNemesis() || op.Type == history.Invoke {
				continue
			}
			ev, _ := op.Extra["evidence"].(map[string]any)
			for _, nodeEv := range ev {
				m, _ := nodeEv.(map[string]any)
				pids, _ := m["pids"].(map[string]any)
				for _, s := range pids {
					if st, _ := s.(string); stateIs(st, d.State) {
						n++
					}
				}
			}
		}
		return n >= d.Min, fmt.Sprintf("%d processes read back in state %s (want >= %d)", n, d.State, d.Min)
	}
	return false, fmt.Sprintf("unknown evidence kind %q", d.Kind)
}

// stateIs reports whether a /proc state read back (R, S, T, Z, ... or
// "gone") is the state a declaration names: a /proc letter, or one of the
// words plans use, "stopped" (T, t) and "gone" (gone, and the zombie or
// dead states a killed process passes through, as processLanded counts).
func stateIs(read, want string) bool {
	switch want {
	case "stopped":
		return read == "T" || read == "t"
	case "gone":
		return read == "gone" || read == "Z" || read == "X"
	}
	return read == want
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// victimsOf reads the nodes a fault's completion says it acted on: the
// "nodes" its value resolved to, else the nodes its evidence came from.
func victimsOf(op history.Op) []string {
	if v, ok := op.Value.(map[string]any); ok {
		if ns, ok := v["nodes"].([]any); ok {
			var out []string
			for _, n := range ns {
				if s, ok := n.(string); ok {
					out = append(out, s)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	if ev, ok := op.Extra["evidence"].(map[string]any); ok && len(ev) > 0 {
		return slices.Sorted(maps.Keys(ev))
	}
	return nil
}
