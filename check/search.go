package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/faultline/faultline/history"
)

// maxVisualizedOps bounds the HTML page: porcupine replays every partial
// linearization into it, which is quadratic in the partition size.
const maxVisualizedOps = 20000

// searchResult is the outcome over all partitions.
type searchResult struct {
	verdicts  []porcupine.CheckResult
	failed    int   // the partition proven not linearizable, -1 if none
	best      []int // the failed partition's longest partial linearization (op ids)
	timedOut  []int // partitions whose search hit the timeout, largest first
	cancelled bool  // the context ended the search before it decided
}

// search checks each partition in its own goroutine, as porcupine does, but
// with linCheck (linsearch.go), so the first partition proven illegal can stop
// the others (an illegal partition needs an exhaustive search, and the other
// keys of a bad history can take minutes), and the search that proves a
// partition illegal also yields its longest partial linearization: the
// explanation needs no second search.
//
// Stopping works through a flag linCheck polls; a stopped search answers
// Unknown, so only a search that ran to its end decides.
func (s *spec) search(ctx context.Context, h []history.Op, p *prepared, timeout time.Duration) searchResult {
	var stop atomic.Bool
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	sr := searchResult{verdicts: make([]porcupine.CheckResult, len(p.parts)), failed: -1}
	var mu sync.Mutex
	check := func(i int) {
		var left time.Duration
		if timeout > 0 {
			if left = time.Until(deadline); left <= 0 {
				sr.verdicts[i] = porcupine.Unknown
				return
			}
		}
		r := s.linCheck(p.parts[i].ops, &stop, left)
		mu.Lock()
		defer mu.Unlock()
		if r.verdict == porcupine.Illegal && sr.failed < 0 {
			sr.failed, sr.best = i, r.best
			stop.Store(true)
		}
		sr.verdicts[i] = r.verdict
	}
	// The first partition runs on this goroutine: most histories have one,
	// and a handoff per check is measurable on a small machine.
	var wg sync.WaitGroup
	for i := 1; i < len(p.parts); i++ {
		wg.Go(func() { check(i) })
	}
	check(0)
	wg.Wait()
	if sr.failed >= 0 {
		return sr
	}
	// A context that ran out of time is a timeout, one cancelled is not.
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) && slices.Contains(sr.verdicts, porcupine.Unknown) {
		sr.cancelled = true
		return sr
	}
	for i, v := range sr.verdicts {
		if v == porcupine.Unknown {
			sr.timedOut = append(sr.timedOut, i)
		}
	}
	sort.SliceStable(sr.timedOut, func(a, b int) bool {
		return len(p.parts[sr.timedOut[a]].ops) > len(p.parts[sr.timedOut[b]].ops)
	})
	return sr
}

// detail searches one partition again, recording the partial linearizations
// that the explanation and the HTML page are made of. A search the context
// cut short reports Unknown: its partial orders are real but maybe not the longest.
func (s *spec) detail(ctx context.Context, h []history.Op, ops []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	var stop atomic.Bool
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	verdict, info := porcupine.CheckOperationsVerbose(s.porcupineModel(h, &stop), ops, timeout)
	if stop.Load() {
		verdict = porcupine.Unknown
	}
	return verdict, info
}

// porcupineModel adapts spec to porcupine for one partition at a time.
func (s *spec) porcupineModel(h []history.Op, stop *atomic.Bool) porcupine.Model {
	m := porcupine.Model{
		Init: s.initial,
		StepContext: func(_ context.Context, state, in, out any) (bool, any) {
			if stop.Load() {
				return false, state
			}
			return s.step(state, in.(*input), out.(*output))
		},
		Equal: s.equal,
		DescribeOperation: func(in, out any) string {
			return describeOp(in.(*input), out.(*output))
		},
		DescribeState: formatValue,
		DescribeOperationMetadata: func(meta any) string {
			in, ok := meta.(*input)
			if !ok {
				return ""
			}
			op := &h[in.invoke]
			return fmt.Sprintf("op %d, process %d, node %q", op.Index, op.Process, op.Node)
		},
	}
	// Hashing pays off where one set of linearized ops can leave many states
	// (appended strings, maps). A register holds one of the few values
	// written around the frontier, and hashing only grows porcupine's cache.
	if s.kind == kindKV || s.kind == kindMulti {
		m.Hash = s.hash
	}
	return m
}

// visualize writes porcupine's HTML page for one partition, with the nemesis
// windows as a row of annotations so a person sees which faults overlapped
// the anomaly.
func (s *spec) visualize(h []history.Op, p *prepared, part int, info porcupine.LinearizationInfo, dir string) error {
	if n := len(p.parts[part].ops); n > maxVisualizedOps {
		return fmt.Errorf("%d ops is more than the %d the visualization handles", n, maxVisualizedOps)
	}
	info.AddAnnotations(nemesisAnnotations(nemesisWindows(h, p.pairs)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, VisualizationFile)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create visualization: %w", err)
	}
	// A fresh stop flag: the page must replay steps even if the run was cancelled.
	err = porcupine.Visualize(s.porcupineModel(h, new(atomic.Bool)), info, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
