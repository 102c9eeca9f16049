package nemesis

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/history"
)

// EvidenceModule is the Starlark "evidence" module: declarations of the
// signals a scenario requires to see, judged after the run from the
// recorded history by Evaluate.
//
//	evidence.landed()                      every fault op read back as in effect (and there was one)
//	evidence.iptables_drops(min=1)         packets counted by faultline's DROP rules
//	evidence.op_errors(during_fault=True, min=1)  client ops failing or timing out (during a fault)
//	evidence.process_state(state="T", min=1)      processes read back from /proc in state ("gone" for killed)
var EvidenceModule = &starlarkstruct.Module{
	Name: "evidence",
	Members: starlark.StringDict{
		"landed":         starlark.NewBuiltin("evidence.landed", landedBuiltin),
		"iptables_drops": starlark.NewBuiltin("evidence.iptables_drops", dropsBuiltin),
		"op_errors":      starlark.NewBuiltin("evidence.op_errors", opErrorsBuiltin),
		"process_state":  starlark.NewBuiltin("evidence.process_state", processStateBuiltin),
	},
}

// Decl is one evidence declaration (Starlark type "evidence").
type Decl struct {
	Kind        string // landed, iptables_drops, op_errors, process_state
	Min         int64
	DuringFault bool
	State       string
}

// String implements starlark.Value.
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

// Type implements starlark.Value.
func (d *Decl) Type() string { return "evidence" }

// Freeze implements starlark.Value.
func (d *Decl) Freeze() {}

// Truth implements starlark.Value.
func (d *Decl) Truth() starlark.Bool { return starlark.True }

// Hash implements starlark.Value.
func (d *Decl) Hash() (uint32, error) { return 0, errors.New("unhashable type: evidence") }

// Finding is the judgement of one declaration.
type Finding struct {
	Decl     string `json:"decl"`
	Pass     bool   `json:"pass"`
	Evidence string `json:"evidence"`
}

// DeclsFromStarlark accepts one declaration, a list of them, or None.
func DeclsFromStarlark(v starlark.Value) ([]*Decl, error) {
	switch v := v.(type) {
	case nil, starlark.NoneType:
		return nil, nil
	case *Decl:
		return []*Decl{v}, nil
	case *starlark.List:
		out := make([]*Decl, 0, v.Len())
		for i := range v.Len() {
			d, ok := v.Index(i).(*Decl)
			if !ok {
				return nil, fmt.Errorf("landing[%d]: want evidence.*(...), got %s", i, v.Index(i).Type())
			}
			out = append(out, d)
		}
		return out, nil
	}
	return nil, fmt.Errorf("landing: want evidence.*(...) or a list of them, got %s", v.Type())
}

func minArg(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, extra ...any) (int64, error) {
	var m int64 = 1
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, append([]any{"min?", &m}, extra...)...); err != nil {
		return 0, err
	}
	if m < 0 {
		return 0, fmt.Errorf("%s: min must not be negative", b.Name())
	}
	return m, nil
}

func landedBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return &Decl{Kind: "landed", Min: 1}, nil
}

func dropsBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m, err := minArg(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return &Decl{Kind: "iptables_drops", Min: m}, nil
}

func opErrorsBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	during := true
	m, err := minArg(b, args, kwargs, "during_fault?", &during)
	if err != nil {
		return nil, err
	}
	return &Decl{Kind: "op_errors", Min: m, DuringFault: during}, nil
}

func processStateBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	state := "T"
	m, err := minArg(b, args, kwargs, "state?", &state)
	if err != nil {
		return nil, err
	}
	if state == "" {
		return nil, fmt.Errorf("%s: empty state", b.Name())
	}
	return &Decl{Kind: "process_state", Min: m, State: state}, nil
}

// stopOf maps each fault op that opens a window to the op whose invocation
// closes it; a heal closes every window.
var stopOf = map[string]string{
	"start-partition": "stop-partition", "start-loss": "stop-loss", "kill": "start", "pause": "resume",
	"start-bandwidth": "stop-bandwidth", "start-delay": "stop-delay", "fill-disk": "free-disk",
}

// Window is one fault's time in effect and what clients saw meanwhile.
type Window struct {
	Fault  string `json:"fault"`  // the op that opened it (start-partition, kill, ...)
	Landed bool   `json:"landed"` // its completion's read-back verdict
	Start  int64  `json:"start"`  // time of that completion
	End    int64  `json:"end"`    // time the closing op was invoked; -1 if none was
	// Held is what the closing op read back: was the fault still in effect
	// when its hold ended (nil: nothing was read back)?
	Held       *bool `json:"held,omitempty"`
	ClientOK   int   `json:"client_ok"`   // client completions in the window, by type
	ClientFail int   `json:"client_fail"` // ...
	ClientInfo int   `json:"client_info"` // ...
}

// FaultWindows pairs each fault with the op that healed it and counts the
// client completions in between, in history order.
func FaultWindows(ops []history.Op) []Window {
	var out []Window
	open := map[string]int{}      // fault -> index in out of its open window
	closing := map[string][]int{} // closing op -> windows it closes, until it completes
	for _, op := range ops {
		if !op.IsNemesis() {
			if op.Type == history.Invoke {
				continue
			}
			for _, i := range open {
				switch op.Type {
				case history.OK:
					out[i].ClientOK++
				case history.Fail:
					out[i].ClientFail++
				default:
					out[i].ClientInfo++
				}
			}
			continue
		}
		if op.Type == history.Invoke {
			for f, i := range open {
				if op.F == "heal" || stopOf[f] == op.F {
					out[i].End = op.Time
					closing[op.F] = append(closing[op.F], i)
					delete(open, f)
				}
			}
			continue
		}
		for _, i := range closing[op.F] {
			held, ok := op.Extra["held"].(bool)
			if m, isMap := op.Extra["held"].(map[string]any); isMap {
				held, ok = m[out[i].Fault].(bool)
			}
			if ok && op.Type != history.Fail {
				out[i].Held = &held
			}
		}
		delete(closing, op.F)
		if _, ok := stopOf[op.F]; ok && op.Type != history.Fail {
			if _, already := open[op.F]; !already {
				open[op.F] = len(out)
				out = append(out, Window{Fault: op.F, Landed: op.Extra["landed"] == true, Start: op.Time, End: -1})
			}
		}
	}
	return out
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
		var total, landed int
		var notes []string
		for _, op := range ops {
			if _, fault := stopOf[op.F]; !op.IsNemesis() || op.Type == history.Invoke || !fault {
				continue
			}
			total++
			if op.Extra["landed"] == true {
				landed++
			} else {
				notes = append(notes, fmt.Sprintf("%s at index %d did not land", op.F, op.Index))
			}
		}
		ev := fmt.Sprintf("%d of %d faults landed", landed, total)
		if len(notes) > 0 {
			ev += ": " + strings.Join(notes, "; ")
		}
		return total > 0 && landed == total, ev
	case "iptables_drops":
		var total int64
		var per []string
		for _, op := range ops {
			if !op.IsNemesis() || op.Type == history.Invoke || (op.F != "stop-partition" && op.F != "stop-loss") {
				continue
			}
			ev, _ := op.Extra["evidence"].(map[string]any)
			for _, node := range sortedKeys(ev) {
				m, _ := ev[node].(map[string]any)
				if n, ok := m["drops"].(int64); ok && n > 0 {
					total += n
					per = append(per, fmt.Sprintf("%s %d", node, n))
				}
			}
		}
		return total >= d.Min, fmt.Sprintf("%d packets dropped (want >= %d): %s", total, d.Min, strings.Join(per, ", "))
	case "op_errors":
		var n int64
		var windows []Window
		if d.DuringFault {
			windows = FaultWindows(ops)
		}
		for _, op := range ops {
			if !op.IsNemesis() && (op.Type == history.Fail || op.Type == history.Info) && (!d.DuringFault || inWindow(windows, op.Time)) {
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
					if s == d.State {
						n++
					}
				}
			}
		}
		return n >= d.Min, fmt.Sprintf("%d processes read back in state %s (want >= %d)", n, d.State, d.Min)
	}
	return false, fmt.Sprintf("unknown evidence kind %q", d.Kind)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
