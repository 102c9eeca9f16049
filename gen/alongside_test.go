package gen

import (
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// TestAlongside: the load runs its time on the schedule's clock, which
// stands still while the nemesis runs a step, so a slow step lengthens the
// load by its own duration; no client op is issued after both are done,
// and none after the quiet tail that follows the nemesis's last step.
func TestAlongside(t *testing.T) {
	nemOp := func(f string, at time.Duration) Generator {
		return &atGen{at: int64(at), op: history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f}}
	}
	tests := []struct {
		name    string
		nemesis Generator
		latency time.Duration // of a nemesis step
		end     time.Duration // the last client invocation is in the second before it
		steps   int           // nemesis steps completed
	}{
		{"no nemesis steps", nil, 0, 10 * time.Second, 0},
		{"a quick step inside the time", nemOp("start-partition", 2*time.Second), 10 * time.Millisecond, 10*time.Second + 10*time.Millisecond, 1},
		{"a slow step that lands after the time", nemOp("start-partition", 8*time.Second), 25 * time.Second, 36 * time.Second, 1},                                // done at 33s, +3s quiet
		{"two slow steps in a row", Seq(nemOp("start-partition", 8*time.Second), nemOp("stop-partition", 9*time.Second)), 25 * time.Second, 61 * time.Second, 2}, // done at 58s
		// The quiet tail (3s here): the load runs on 3s past the last step
		// when that step ends less than 3s before the load would.
		{"a heal 1s before the end leaves the quiet tail after it", nemOp("stop-partition", 9*time.Second), 10 * time.Millisecond, 12*time.Second + 10*time.Millisecond, 1},
		{"a heal right at the end", nemOp("stop-partition", 10*time.Second), 10 * time.Millisecond, 13*time.Second + 10*time.Millisecond, 1},
		{"a heal well before the end needs no tail", nemOp("stop-partition", 5*time.Second), 10 * time.Millisecond, 10*time.Second + 10*time.Millisecond, 1},
		{"a slow last step: the tail follows its completion", nemOp("stop-partition", 9*time.Second), 25 * time.Second, 37 * time.Second, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Alongside(10*time.Second, 3*time.Second, Clients(Stagger(100*time.Millisecond, rep("read"))), Nemesis(tt.nemesis))
			ops, _ := virtualRun(t, g, Config{Concurrency: 2, Nemesis: nopNemesis{},
				Latency: latencyByF(map[string]time.Duration{"start-partition": tt.latency, "stop-partition": tt.latency})})
			var last int64
			nemCompleted := 0
			for _, op := range ops {
				if op.IsNemesis() {
					if op.Type != history.Invoke {
						nemCompleted++
					}
					continue
				}
				if op.Type == history.Invoke {
					last = max(last, op.Time)
				}
			}
			if end := int64(tt.end); last < end-int64(time.Second) || last >= end {
				t.Errorf("last client op at %s, want in the second before %s", time.Duration(last), tt.end)
			}
			if nemCompleted != tt.steps {
				t.Errorf("%d nemesis steps completed, want %d", nemCompleted, tt.steps)
			}
		})
	}
}

// atGen is one op due at a fixed time.
type atGen struct {
	at int64
	op history.Op
}

func (g *atGen) Op(ctx *Context) (history.Op, Generator, Status) {
	op, _, st := Op(g.op).Op(ctx)
	if st != Ready {
		return op, g, st
	}
	op.Time = max(op.Time, g.at)
	return op, nil, Ready
}

func (g *atGen) Update(*Context, history.Op) Generator { return g }
