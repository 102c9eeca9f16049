package check

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/bytesize"
	"github.com/faultline/faultline/internal/plural"
)

// ErrMemoryBudget is the cause of the context Run gives a checker whose
// process heap outgrew the check's memory budget.
var ErrMemoryBudget = errors.New("memory budget exhausted")

// DefaultMemoryBudget is the heap a check may grow to when its Env names no
// budget: half the machine's memory, or 4 GiB where that cannot be read. A
// search past it would soon be killed by the kernel, losing every result.
func DefaultMemoryBudget() uint64 {
	if total, ok := totalMemory(); ok {
		return total / 2
	}
	return 4 << 30
}

// memoryPoll is how often Run reads the heap: a search allocates at most a
// few hundred MB a second, so the budget is overshot by little.
const memoryPoll = 20 * time.Millisecond

// Run is how a checker is run: c.Check(h) under env's memory budget. When
// the process heap outgrows it the check's context ends with
// ErrMemoryBudget, and a check that had not decided by then is unknown with
// the reason, rather than killed by the kernel with everything else the
// process held. A verdict reached before the budget ran out stands.
//
// A history that holds no client op is unknown before any checker sees it:
// nothing was asked of the system, so no checker can say it answered right,
// and a valid verdict there (Knossos calls an empty history linearizable)
// would read as a pass.
func Run(ctx context.Context, c Checker, h []history.Op, env Env) Result {
	if r, empty := noClientOps(c.Name(), h); empty {
		return r
	}
	limit := env.MemoryBudget
	if limit == 0 {
		limit = DefaultMemoryBudget()
	}
	wctx, stop := watchMemory(ctx, limit)
	defer stop()
	res := c.Check(wctx, h, env)
	cause := context.Cause(wctx)
	if !errors.Is(cause, ErrMemoryBudget) || res.Valid != Unknown {
		return res
	}
	res.Valid = Unknown
	res.Summary = "unknown: the check stopped at its memory budget: " + cause.Error()
	res.Explanation = fmt.Sprintf("The check needed more memory than its budget of %s, so it stopped before deciding, and nothing was decided.\n"+
		"To decide it: raise the budget (faultline check --memory), check fewer ops per key, or reduce op timeouts so fewer ops end as info.\n",
		bytesize.Format(limit))
	if res.Details == nil {
		res.Details = map[string]any{}
	}
	res.Details["stopped_by"] = "memory budget"
	res.Details["memory_budget_bytes"] = limit
	return res
}

// watchMemory returns ctx, ended with ErrMemoryBudget once the heap holds
// more than limit bytes of objects; stop ends the watch.
func watchMemory(ctx context.Context, limit uint64) (context.Context, func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(memoryPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-wctx.Done():
				return
			case <-tick.C:
				metrics.Read(sample)
				if heap := sample[0].Value.Uint64(); heap > limit {
					cancel(fmt.Errorf("%w: the heap reached %s, over the budget of %s", ErrMemoryBudget, bytesize.Format(heap), bytesize.Format(limit)))
					return
				}
			}
		}
	}()
	return wctx, func() {
		close(done)
		cancel(nil)
	}
}

// noClientOps is the unknown result for a history that holds no client op
// (empty, or nemesis events alone), and whether h is such a history.
func noClientOps(name string, h []history.Op) (Result, bool) {
	nemesis := 0
	for i := range h {
		if !h[i].IsNemesis() {
			return Result{}, false
		}
		nemesis++
	}
	why := "the history holds no ops: no client op was recorded, so there is nothing to judge (did the load run, and did the client record its ops?)"
	if nemesis > 0 {
		why = fmt.Sprintf("the history holds no client ops, only %s: there is nothing to judge (did the load run, and did the client record its ops?)", plural.Count(nemesis, "nemesis op"))
	}
	return Result{Checker: name, Valid: Unknown, Summary: "nothing to check: " + why,
		Details: map[string]any{"client_ops": 0, "nemesis_ops": nemesis}}, true
}
