package nemesis

import (
	"fmt"
	"time"

	"github.com/faultline/faultline/history"
)

// Planned is one fault a nemesis schedule asks for: the verdict compares
// these with what landed, so a fault that never fired cannot pass for no
// fault at all.
type Planned struct {
	Fault   string        `json:"fault"`             // the op that injects it: start-partition, kill, ...
	At      time.Duration `json:"at"`                // when it is due, since the run started
	Hold    time.Duration `json:"hold,omitempty"`    // how long it stays; 0 for a fault with no heal
	Targets any           `json:"targets,omitempty"` // the spec it is injected with (node spec, grudge spec)
}

// Name is the fault as reports name it: "start-partition @T+10s for 5s".
func (p Planned) Name() string {
	s := fmt.Sprintf("%s @T+%s", p.Fault, p.At)
	if p.Hold > 0 {
		s += " for " + p.Hold.String()
	}
	return s
}

// maxPlanned bounds the schedule listed for one cycle: a fault with no
// heal and interval 0 would otherwise repeat without end.
const maxPlanned = 10000

// Planned lists the faults the package schedules within a workload of
// duration d, in due order, as its timeline issues them on the schedule's
// clock: every inject due before d, with the deferrals that keep faults
// holding the same thing apart (see timeline). A step the nemesis thread
// issues late shifts the steps after it; the matching in Missed goes by
// order, not time. A cycle whose first fault is due at or after d is
// listed with that fault: the plan asked for it and it cannot fire. Later
// repeats past d are not listed, since a repeating cycle always has a next
// one. A package not built from fault cycles (a custom generator) has no
// schedule to list: nil.
func (p *Package) Planned(d time.Duration) []Planned {
	if len(p.cycles) == 0 {
		return nil
	}
	var out []Planned
	t := newTimeline(p.cycles).within(d)
	fired := make([]bool, len(p.cycles))
	for n := 0; d > 0 && n < maxPlanned*len(p.cycles); n++ {
		i, cur := t.next()
		if i < 0 {
			break
		}
		if cur.healed[i] {
			c := cur.cycles[i]
			out = append(out, Planned{Fault: c.inject, At: time.Duration(cur.due[i]), Hold: c.plannedHold(), Targets: c.value})
			fired[i] = true
		}
		t = cur.advance(i)
	}
	for i, c := range p.cycles {
		if !fired[i] {
			at := time.Duration(c.tm.Start)
			if t.due[i] != done {
				at = time.Duration(t.due[i])
			}
			out = append(out, Planned{Fault: c.inject, At: at, Hold: c.plannedHold(), Targets: c.value})
		}
	}
	sortPlanned(out)
	return out
}

// plannedHold is how long the cycle's fault stays: 0 for one with no heal.
func (c faultCycle) plannedHold() time.Duration {
	if c.heal == "" {
		return 0
	}
	return c.tm.Hold
}

func sortPlanned(ps []Planned) {
	// Insertion sort keeps equal times in cycle order, as the timeline does.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].At < ps[j-1].At; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// Miss is a fault that was scheduled or attempted but never took effect:
// its injection failed, it was never issued, or it never completed.
type Miss struct {
	Fault  string `json:"fault"` // "start-partition @T+10s for 5s", or the op for an unplanned attempt
	Reason string `json:"reason"`
}

// attempt is one injection the nemesis issued and how it completed.
type attempt struct {
	at        int64
	completed bool
	typ       history.Type
	err       any
}

// Missed compares a schedule with the recorded history: every planned
// fault is matched, by fault and order, with the nemesis's injections. A
// planned fault with no injection, an injection that completed fail
// (planned or not: a custom generator's too) and one that never completed
// are misses. workload is the workload's duration; interrupted says the run
// was cancelled before its budget ended, so the reason can say so.
func Missed(plan []Planned, ops []history.Op, workload time.Duration, interrupted bool) []Miss {
	tries := map[string][]attempt{}
	pending := -1 // the nemesis thread runs one op at a time
	var pendingF string
	var last int64
	for _, op := range ops {
		last = max(last, op.Time)
		if !op.IsNemesis() {
			continue
		}
		if op.Type == history.Invoke {
			pending, pendingF = -1, ""
			if injectOp(op.F) {
				tries[op.F] = append(tries[op.F], attempt{at: op.Time})
				pending, pendingF = len(tries[op.F])-1, op.F
			}
			continue
		}
		if pending >= 0 && op.F == pendingF {
			a := &tries[pendingF][pending]
			a.completed, a.typ, a.err = true, op.Type, op.Error
		}
		pending, pendingF = -1, ""
	}
	var out []Miss
	used := map[string]int{}
	for _, p := range plan {
		k := used[p.Fault]
		used[p.Fault]++
		if k < len(tries[p.Fault]) {
			if r := attemptMiss(tries[p.Fault][k]); r != "" {
				out = append(out, Miss{Fault: p.Name(), Reason: r})
			}
			continue
		}
		var why string
		switch {
		case p.At >= workload:
			why = fmt.Sprintf("scheduled at T+%s, at or after the end of the workload (%s): never injected", p.At, workload)
		case interrupted:
			why = fmt.Sprintf("never injected: the run was interrupted (last op at T+%s) before it was issued", time.Duration(last).Round(time.Millisecond))
		default:
			why = fmt.Sprintf("never injected: the workload ended (last op at T+%s) before it was issued", time.Duration(last).Round(time.Millisecond))
		}
		out = append(out, Miss{Fault: p.Name(), Reason: why})
	}
	// Attempts beyond the plan (a custom generator, or no plan at all).
	for _, f := range sortedAttemptKeys(tries) {
		for _, a := range tries[f][min(used[f], len(tries[f])):] {
			if r := attemptMiss(a); r != "" {
				out = append(out, Miss{Fault: fmt.Sprintf("%s @T+%s", f, time.Duration(a.at).Round(time.Millisecond)), Reason: r})
			}
		}
	}
	return out
}

// attemptMiss says why an injection did not take effect, "" when it did
// (or may have: partly applied injections open a window judged there).
func attemptMiss(a attempt) string {
	switch {
	case !a.completed:
		return fmt.Sprintf("injection issued at T+%s never completed", time.Duration(a.at).Round(time.Millisecond))
	case a.typ == history.Fail:
		return fmt.Sprintf("injection failed: %v", a.err)
	}
	return ""
}

func sortedAttemptKeys(m map[string][]attempt) []string {
	keys := make(map[string]any, len(m))
	for k := range m {
		keys[k] = nil
	}
	return sortedKeys(keys)
}
