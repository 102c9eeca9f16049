package history

// OpPair links an invocation to its completion by their positions in an ops
// slice. Complete is -1 when the invocation never completed.
type OpPair struct {
	Invoke, Complete int
}

// Pair matches each invocation with the next completion (ok, fail or info) of
// the same process, returning pairs in invocation order. A completion with no
// open invocation, or a second invocation while one is open, is an error naming
// the op's index.
//
// The nemesis is paired the same way, and also the way Jepsen records it: its
// ops are all :info, so an :info with no nemesis op open is the invocation and
// the next one its completion.
func Pair(ops []Op) ([]OpPair, error) {
	pairs := make([]OpPair, 0, len(ops)/2+1)
	open := make(map[int]int) // process -> position in pairs of its open invocation
	for i := range ops {
		op := &ops[i]
		slot, isOpen := open[op.Process]
		invokes := op.Type == Invoke || (op.Type == Info && op.IsNemesis() && !isOpen)
		switch {
		case !op.Type.Valid():
			return nil, OpErrorf(op.Index, "op %d has type %q, not invoke, ok, fail or info", op.Index, op.Type)
		case invokes && isOpen:
			return nil, OpErrorf(op.Index, "op %d: process %s invokes while op %d is still open", op.Index, ProcessName(op.Process), ops[pairs[slot].Invoke].Index)
		case invokes:
			open[op.Process] = len(pairs)
			pairs = append(pairs, OpPair{Invoke: i, Complete: -1})
		case !isOpen:
			return nil, OpErrorf(op.Index, "op %d: %s of process %s has no open invocation", op.Index, op.Type, ProcessName(op.Process))
		default:
			pairs[slot].Complete = i
			delete(open, op.Process)
		}
	}
	return pairs, nil
}

// PairCompletions pairs a history that records only completions, as Elle's
// examples do: with no client invocation in it, each client completion is a
// pair of its own, Invoke == Complete, its start unknown. Nemesis ops are
// left out. It reports false when the history has a client invocation,
// which makes Pair its pairing.
func PairCompletions(ops []Op) ([]OpPair, bool) {
	pairs := make([]OpPair, 0, len(ops))
	for i := range ops {
		switch op := &ops[i]; {
		case op.IsNemesis():
		case op.Type == Invoke:
			return nil, false
		default:
			pairs = append(pairs, OpPair{Invoke: i, Complete: i})
		}
	}
	return pairs, true
}
