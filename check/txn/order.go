package txn

// processEdges links each committed transaction to the committed one before
// it on the same process. As Elle's process-graph, only ok transactions take
// part: an indeterminate one may have taken effect at any time up to the end
// of the history, so it neither follows nor precedes its process's others.
func (h *hist) processEdges(e *edges) {
	last := make(map[int]int32)
	for t := int32(0); t < int32(len(h.txns)); t++ {
		if h.txns[t].st != committed {
			continue
		}
		if prev, ok := last[h.proc(t)]; ok {
			e.add(prev, t, process)
		}
		last[h.proc(t)] = t
	}
}

// realtimeEdges links transactions that completed before another was invoked,
// as a transitive reduction: walking the history in order, it keeps a frontier
// of completed transactions that no later-completed one is known to follow.
// An invocation links from every transaction on the frontier; a completion
// joins the frontier and removes the transactions it was linked from, since
// anything invoked later reaches them through it. Edges number at most the
// transactions times the concurrency, instead of quadratically many.
// Indeterminate transactions never complete, so they are never on the
// frontier. A history of completions alone has no real-time order: no
// transaction's start is known.
func (h *hist) realtimeEdges(e *edges) {
	if h.completionsOnly {
		return
	}
	// events[pos] is t+1 for the invocation of t, -(t+1) for the completion
	// of committed t, 0 for anything else.
	events := make([]int32, len(h.ops))
	for t := range h.txns {
		tr := &h.txns[t]
		if tr.st == aborted {
			continue
		}
		events[tr.inv] = int32(t) + 1
		if tr.st == committed {
			events[tr.comp] = -int32(t) - 1
		}
	}
	var frontier []int32
	for _, ev := range events {
		switch {
		case ev > 0:
			for _, f := range frontier {
				e.add(f, ev-1, realtime)
			}
		case ev < 0:
			// t was linked from exactly the frontier members that had
			// completed before it was invoked.
			t := -ev - 1
			inv := h.txns[t].inv
			kept := frontier[:0]
			for _, f := range frontier {
				if h.txns[f].comp > inv {
					kept = append(kept, f)
				}
			}
			frontier = append(kept, t)
		}
	}
}
