package check

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/faultline/faultline/history"
)

// infinity is the return time of an op whose outcome is unknown: it may take
// effect at any point after its invocation, even after every other op.
const infinity = math.MaxInt64

// partition is the ops of one key; porcupine checks each independently.
type partition struct {
	key     string // "" for single-register models
	ops     []porcupine.Operation
	unknown int // ops with an unknown outcome (their search cost dominates)
}

// prepared is a history converted for porcupine, with what was kept and dropped.
type prepared struct {
	parts     []partition
	pairs     []history.OpPair // every invocation with its completion, nemesis included
	ok        int              // ops with a known outcome
	unknown   int              // info or never-completed ops kept with an unconstrained output
	failed    int              // fail completions: the op did not happen, dropped
	infoReads int              // unknown-outcome ops with no effect (reads), dropped
	loneInfos int              // client info ops with no open invocation (a crash record), dropped
}

func (p *prepared) ops() int { return p.ok + p.unknown }

// prepare pairs invocations with completions and turns each client op into a
// porcupine operation. Times are positions in h, so real-time order is exactly
// the order the history recorded; an unknown outcome returns at infinity.
func (s *spec) prepare(h []history.Op) (*prepared, error) {
	pairs, lone, err := pairTolerant(h)
	if err != nil {
		return nil, fmt.Errorf("pair invocations with completions: %w", err)
	}
	p := &prepared{pairs: pairs, loneInfos: lone}
	size := len(pairs)
	for _, pr := range pairs {
		if h[pr.Invoke].F == finalDumpF && pr.Complete >= 0 {
			if m, ok := h[pr.Complete].Value.(map[string]any); ok {
				size += len(m)
			}
		}
	}
	ins := make([]input, 0, size)
	outs := make([]output, 0, size)
	byKey := map[string]int{}
	// add appends one porcupine op; ins and outs never grow past their
	// capacity, so the pointers it takes stay valid.
	add := func(in input, out output, process int, call, ret int64) {
		ins, outs = append(ins, in), append(outs, out)
		idx, seen := byKey[in.key]
		if !seen {
			idx = len(p.parts)
			byKey[in.key] = idx
			p.parts = append(p.parts, partition{key: in.key})
		}
		pt := &p.parts[idx]
		if out.unknown {
			pt.unknown++
		}
		pt.ops = append(pt.ops, porcupine.Operation{
			ClientId: max(process, 0),
			Input:    &ins[len(ins)-1],
			Call:     call,
			Output:   &outs[len(outs)-1],
			Return:   ret,
			Metadata: &ins[len(ins)-1],
		})
	}
	for _, pr := range pairs {
		inv := &h[pr.Invoke]
		if inv.IsNemesis() {
			continue
		}
		var comp *history.Op
		if pr.Complete >= 0 {
			comp = &h[pr.Complete]
		}
		if comp != nil && comp.Type == history.Fail {
			p.failed++
			continue
		}
		if inv.F == finalDumpF {
			reads := s.dumpReads(comp)
			if len(reads) == 0 {
				p.infoReads++ // an unknown outcome, or nothing this model reads
				continue
			}
			for _, r := range reads {
				add(input{kind: opRead, key: r.key, invoke: pr.Invoke}, output{value: r.value, complete: pr.Complete},
					inv.Process, int64(pr.Invoke), int64(pr.Complete))
			}
			p.ok++
			continue
		}
		in, out, err := s.decode(inv, comp)
		if err != nil {
			return nil, history.OpErrorf(inv.Index, "op %d (process %d, %s): %w", inv.Index, inv.Process, inv.F, err)
		}
		in.invoke, out.complete = pr.Invoke, pr.Complete
		if out.unknown && !hasEffect(&in) {
			p.infoReads++
			continue
		}
		ret := int64(pr.Complete)
		if out.unknown {
			ret = infinity
			p.unknown++
		} else {
			p.ok++
		}
		add(in, out, inv.Process, int64(pr.Invoke), ret)
	}
	return p, nil
}

// pairTolerant pairs like history.Pair, except that a client info op whose
// process has no open invocation is dropped and counted instead of refused.
// Knossos (and Jepsen's histories it reads) record a crash that way: a bare
// {:type :info :f :crash} with nothing invoked, which says nothing about the
// register. An ok or fail with no invocation is still an error.
func pairTolerant(h []history.Op) ([]history.OpPair, int, error) {
	// Most histories have none: pair them directly, and look for lone
	// infos only when pairing fails.
	pairs, err := history.Pair(h)
	if err == nil {
		return pairs, 0, nil
	}
	open := map[int]bool{}
	var lone []int
	for i := range h {
		op := &h[i]
		switch {
		case op.IsNemesis():
		case op.Type == history.Invoke:
			open[op.Process] = true
		case op.Type == history.Info && !open[op.Process]:
			lone = append(lone, i)
		default:
			delete(open, op.Process)
		}
	}
	if len(lone) == 0 {
		return nil, 0, err
	}
	// Pair the history without them, then map positions back to h.
	kept := make([]history.Op, 0, len(h)-len(lone))
	pos := make([]int, 0, len(h)-len(lone))
	for i, j := 0, 0; i < len(h); i++ {
		if j < len(lone) && lone[j] == i {
			j++
			continue
		}
		kept, pos = append(kept, h[i]), append(pos, i)
	}
	pairs, err = history.Pair(kept)
	if err != nil {
		return nil, 0, err
	}
	for i := range pairs {
		pairs[i].Invoke = pos[pairs[i].Invoke]
		if pairs[i].Complete >= 0 {
			pairs[i].Complete = pos[pairs[i].Complete]
		}
	}
	return pairs, len(lone), nil
}

// finalDumpF is the function of the final-state read (a scenario's final=
// phase): an ok completion's value is {key: value}, each key read within
// the op's interval.
const finalDumpF = "dump"

// dumpRead is one key's value in a final dump.
type dumpRead struct {
	key   string
	value any
}

// dumpReads turns an ok dump into the reads the model checks: one per key
// (in key order, so the check is repeatable) for kv, the unkeyed
// register's entry ("nil") for a single-register model, none for a
// multi-register model or a dump whose outcome is unknown.
func (s *spec) dumpReads(comp *history.Op) []dumpRead {
	if comp == nil || comp.Type != history.OK {
		return nil
	}
	state, _ := comp.Value.(map[string]any)
	switch s.kind {
	case kindMulti:
		return nil
	case kindKV:
		reads := make([]dumpRead, 0, len(state))
		for _, k := range slices.Sorted(maps.Keys(state)) {
			reads = append(reads, dumpRead{k, normKV(state[k])})
		}
		return reads
	}
	if v, ok := state[formatValue(nil)]; ok {
		return []dumpRead{{"", v}}
	}
	return nil
}

// hasEffect reports whether an op can change state; one that cannot and whose
// output is unknown constrains nothing, so the search can skip it.
func hasEffect(in *input) bool {
	switch in.kind {
	case opRead:
		return false
	case opTxn:
		for _, m := range in.txn {
			if m.write {
				return true
			}
		}
		return false
	}
	return true
}

// decode reads one op's arguments and result in the model's vocabulary.
func (s *spec) decode(inv, comp *history.Op) (input, output, error) {
	out := output{unknown: comp == nil || comp.Type == history.Info}
	var in input
	arg, res := inv.Value, any(nil)
	if comp != nil {
		res = comp.Value
	}
	if s.kind == kindKV {
		key, a, r, err := kvKey(inv, arg, res, !out.unknown)
		if err != nil {
			return in, out, err
		}
		in.key, arg, res = key, normKV(a), normKV(r)
	} else if inv.Key != nil {
		return in, out, fmt.Errorf("op has key %s, but the %s model checks a single register; use model kv", formatValue(inv.Key), s.name)
	}
	switch f := inv.F; {
	case f == "read" || f == "get":
		if s.kind == kindMulti {
			return in, out, s.unknownF(f)
		}
		in.kind = opRead
		if !out.unknown {
			out.value = res
		}
	case f == "write" || f == "put":
		if s.kind == kindMulti {
			return in, out, s.unknownF(f)
		}
		in.kind, in.arg = opWrite, arg
	case f == "cas" && (s.kind == kindCAS || s.kind == kindKV):
		pair, ok := arg.([]any)
		if !ok || len(pair) != 2 {
			return in, out, fmt.Errorf("cas value must be [from to], got %s", formatValue(inv.Value))
		}
		in.kind, in.arg, in.to = opCAS, pair[0], pair[1]
		if s.kind == kindKV {
			in.arg, in.to = normKV(in.arg), normKV(in.to)
		}
	case f == "append" && s.kind == kindKV:
		if _, ok := arg.(string); !ok && arg != nil {
			return in, out, fmt.Errorf("append value must be a string, got %s", formatValue(arg))
		}
		in.kind, in.arg = opAppend, arg
	case f == "txn" && s.kind == kindMulti:
		// An ok completion carries the read results; otherwise use the invocation.
		src := arg
		if !out.unknown {
			src = res
		}
		txn, err := decodeTxn(src)
		if err != nil {
			return in, out, err
		}
		in.kind, in.txn = opTxn, txn
	default:
		return in, out, s.unknownF(f)
	}
	return in, out, nil
}

func (s *spec) unknownF(f string) error {
	for _, m := range models {
		if m.kind == s.kind {
			return fmt.Errorf("function %q is not part of the %s model (%s)", f, s.name, m.fs)
		}
	}
	return fmt.Errorf("function %q is not part of the %s model", f, s.name)
}

// kvKey finds an op's key: Op.Key, or a Jepsen independent tuple [k v] in the
// value (then the value inside the tuple is the op's value). okResult says the
// completion is ok, so its value must be a tuple for the same key.
func kvKey(inv *history.Op, arg, res any, okResult bool) (string, any, any, error) {
	if inv.Key != nil {
		return history.KeyText(inv.Key), arg, res, nil
	}
	t, ok := arg.([]any)
	if !ok || len(t) != 2 {
		return "", nil, nil, fmt.Errorf("kv needs a key: set the op's key or use a [key value] tuple, got value %s", formatValue(arg))
	}
	switch rt, ok := res.([]any); {
	case ok && len(rt) == 2 && history.Equal(rt[0], t[0]):
		res = rt[1]
	case okResult && res != nil:
		return "", nil, nil, fmt.Errorf("completion value %s is not a [key value] tuple for key %s", formatValue(res), formatValue(t[0]))
	default:
		res = nil // an info completion's value (e.g. :timed-out) says nothing
	}
	return history.KeyText(t[0]), t[1], res, nil
}

// normKV makes the empty string and nil one value in kv: stores return "" for
// an absent key, so a get of "" and a get of nil both mean "nothing there".
func normKV(v any) any {
	switch x := v.(type) {
	case string:
		if x == "" {
			return nil
		}
	case history.Keyword:
		if x == "" {
			return nil
		}
	}
	return v
}

// decodeTxn reads [[:read :x v] [:write :y v] ...]; "r"/"w" are accepted too.
func decodeTxn(v any) ([]mop, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("txn value must be a list of [f k v] micro-ops, got %s", formatValue(v))
	}
	txn := make([]mop, len(list))
	for i, e := range list {
		m, ok := e.([]any)
		if !ok || len(m) < 2 || len(m) > 3 {
			return nil, fmt.Errorf("txn micro-op %d must be [f k v], got %s", i, formatValue(e))
		}
		f := history.KeyText(m[0])
		switch f {
		case "read", "r":
		case "write", "w":
			txn[i].write = true
		default:
			return nil, fmt.Errorf("txn micro-op %d: function %s is not read or write", i, formatValue(m[0]))
		}
		if m[1] == nil {
			return nil, fmt.Errorf("txn micro-op %d has no key", i)
		}
		txn[i].key = history.KeyText(m[1])
		if len(m) == 3 {
			txn[i].value = m[2]
		}
	}
	return txn, nil
}
