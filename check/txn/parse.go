package txn

import (
	"fmt"
	"runtime"

	"github.com/faultline/faultline/history"
)

// status is a transaction's outcome.
type status uint8

const (
	committed     status = iota // ok
	indeterminate               // info, or never completed
	aborted                     // fail
)

func (s status) String() string {
	switch s {
	case committed:
		return "ok"
	case indeterminate:
		return "info"
	}
	return "fail"
}

// txnRec is one transaction: an invocation and its completion.
type txnRec struct {
	// inv and comp are positions in ops; comp is -1 when it never
	// completed, and inv is comp in a history of completions alone.
	inv, comp  int32
	mop0, nmop int32 // its micro-ops are mops[mop0 : mop0+nmop]
	st         status
}

// proc is transaction t's process, read from its invocation rather than
// kept in txnRec: only the process order and messages need it, and a
// million transactions were paying 8 bytes each for it.
func (h *hist) proc(t int32) int { return h.ops[h.txns[t].inv].Process }

// mopKind is a micro-op's function.
type mopKind uint8

const (
	mAppend mopKind = iota
	mRead
	mWrite
)

// mop is one interned micro-op. For appends and writes, val is the version
// written; for register reads of ok transactions the version read; for
// list-append reads of ok transactions an index into hist.reads; otherwise -1.
type mop struct {
	kind mopKind
	key  int32
	val  int32
}

// version is one value of one key: a list element or a register value.
type version struct {
	key    int32
	writer int32 // the transaction that appended or wrote it, -1 if none did
	wmop   int32 // the writing micro-op, an index into mops
	pos    int32 // list-append: position in the key's version order, -1 if never read
	inter  bool  // its writer wrote the same key again later (intermediate)
	val    any   // the value as the history spells it
}

// readRec is a read of an ok transaction.
type readRec struct {
	txn, mop, key int32
	prefix        int32 // list-append: distinct elements when the read is a prefix of the key's order, else -1
	val           any   // the value read: for list-append a []any or nil, see list
}

// list is the list a list-append read returned (nil for nil). It is kept
// boxed in val, as the history holds it, rather than beside it: a
// million-transaction history has a million reads, and a second slice
// header each was 30 MB of the checker's heap.
func (r *readRec) list() []any {
	l, _ := r.val.([]any)
	return l
}

// hist is a history reduced to what the checker needs.
type hist struct {
	w       Workload
	ops     []history.Op
	txns    []txnRec
	mops    []mop
	in      *interner
	vers    []version
	vals    *values
	reads   []readRec
	touched []bool // key id -> touched by an ok or info transaction
	// longest is, per key id, the first of its longest list-append reads
	// (an index into reads), -1 if none, and longestLen that read's
	// length: found here, while each list is at hand, rather than by
	// another pass over every read's list.
	longest, longestLen []int32
	consumed            int // ok and info transactions
	// completionsOnly says the history records no invocations: each
	// transaction's inv is its comp, and its start is unknown, so no
	// transaction follows another in real time.
	completionsOnly bool
}

// parse pairs the history and interns every transaction's micro-ops.
func parse(ops []history.Op, w Workload) (*hist, error) {
	pairs, err := history.Pair(ops)
	alone := false
	if err != nil {
		// Elle's examples often record completions alone; Elle then
		// knows no start of any, and neither do we.
		if pairs, alone = history.PairCompletions(ops); !alone {
			return nil, fmt.Errorf("pair history: %w", err)
		}
	}
	n := countParallel(ops, pairs)
	h := &hist{w: w, ops: ops, in: newInterner(), txns: make([]txnRec, 0, n.txns), completionsOnly: alone}
	h.mops = make([]mop, 0, n.mops)
	h.vers = make([]version, 0, n.writes)
	h.reads = make([]readRec, 0, n.reads)
	for _, p := range pairs {
		inv := &ops[p.Invoke]
		if inv.IsNemesis() {
			continue
		}
		if !isTxnF(inv.F) {
			// Skipping it would check less than the user gave and say nothing.
			return nil, history.OpErrorf(inv.Index, "op %d: process %s invokes :f %s; a %s history holds only :f :txn client ops", inv.Index, history.ProcessName(inv.Process), inv.F, w)
		}
		t := txnRec{inv: int32(p.Invoke), comp: int32(p.Complete), st: indeterminate}
		src := inv
		if p.Complete >= 0 {
			switch ops[p.Complete].Type {
			case history.OK:
				t.st, src = committed, &ops[p.Complete]
			case history.Fail:
				t.st = aborted
			}
		}
		if err := h.addTxn(t, src); err != nil {
			return nil, err
		}
	}
	if err := h.indexVersions(); err != nil {
		return nil, err
	}
	if w == RWRegister {
		// Register reads name versions; list-append reads are placed later,
		// against the key's version order.
		for i := range h.reads {
			r := &h.reads[i]
			h.mops[r.mop].val = h.lookupOrAdd(r.key, r.val)
		}
	}
	return h, nil
}

// isTxnF reports whether a client op's :f makes it a transaction: :txn, or
// no :f at all, as in Elle's own examples (Elle reads every client op's
// value as a transaction, whatever its :f).
func isTxnF(f string) bool { return f == "txn" || f == "" }

// counts are upper bounds on what parse will store, so that its big slices
// and maps are allocated once: growing them copies pointers under the garbage
// collector's write barriers, which costs more than the counting pass.
type counts struct{ txns, mops, reads, writes int }

// countParallel is count over pieces of pairs on every core: it reads
// every transaction's micro-ops, which for a big history costs a tenth of
// the check.
func countParallel(ops []history.Op, pairs []history.OpPair) counts {
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 || len(pairs) < 1<<16 {
		return count(ops, pairs)
	}
	parts := make([]counts, procs)
	waits := make([]func(), procs)
	for i := range parts {
		lo, hi := len(pairs)*i/procs, len(pairs)*(i+1)/procs
		waits[i] = goWithPanic(func() { parts[i] = count(ops, pairs[lo:hi]) })
	}
	var n counts
	for i, wait := range waits {
		wait()
		n.txns += parts[i].txns
		n.mops += parts[i].mops
		n.reads += parts[i].reads
		n.writes += parts[i].writes
	}
	return n
}

func count(ops []history.Op, pairs []history.OpPair) counts {
	var n counts
	for _, p := range pairs {
		src := &ops[p.Invoke]
		if !isTxnF(src.F) || src.IsNemesis() {
			continue
		}
		if p.Complete >= 0 && ops[p.Complete].Type == history.OK {
			src = &ops[p.Complete]
		}
		mops, _ := src.Value.([]any)
		n.txns++
		n.mops += len(mops)
		for _, m := range mops {
			if mm, ok := m.([]any); ok && len(mm) > 0 {
				if f, _ := mopFunc(mm[0], ListAppend); f == mRead {
					n.reads++
				} else {
					n.writes++
				}
			}
		}
	}
	return n
}

// addTxn interns the micro-ops of t, read from op src.
func (h *hist) addTxn(t txnRec, src *history.Op) error {
	id := int32(len(h.txns))
	mops, ok := src.Value.([]any)
	if !ok {
		return history.OpErrorf(src.Index, "op %d: txn value %s is not a list of micro-ops", src.Index, history.FormatEDN(src.Value))
	}
	t.mop0, t.nmop = int32(len(h.mops)), int32(len(mops))
	h.txns = append(h.txns, t)
	for i, raw := range mops {
		m, err := h.addMop(id, t.mop0, raw)
		if err != nil {
			return history.OpErrorf(src.Index, "op %d: micro-op %d %s: %w", src.Index, i, history.FormatEDN(raw), err)
		}
		h.mops = append(h.mops, m)
	}
	if t.st != aborted {
		h.consumed++
	}
	return nil
}

// addMop interns one micro-op of transaction t, whose micro-ops start at mop0.
func (h *hist) addMop(t, mop0 int32, raw any) (mop, error) {
	m, ok := raw.([]any)
	if !ok || len(m) < 2 || len(m) > 3 {
		return mop{}, fmt.Errorf("want [f key value]")
	}
	var v any
	if len(m) == 3 {
		v = m[2]
	}
	kind, err := mopFunc(m[0], h.w)
	if err != nil {
		return mop{}, err
	}
	if kind != mRead && len(m) != 3 {
		return mop{}, fmt.Errorf("want [f key value]")
	}
	k := h.in.key(m[1])
	if int(k) == len(h.touched) {
		h.touched = append(h.touched, false)
	}
	st := h.txns[t].st
	h.touched[k] = h.touched[k] || st != aborted
	out := mop{kind: kind, key: k, val: -1}
	switch kind {
	case mAppend, mWrite:
		if v == nil && kind == mWrite {
			return mop{}, fmt.Errorf("writes nil, the initial value of every register")
		}
		id := int32(len(h.vers))
		h.vers = append(h.vers, version{key: k, writer: t, wmop: int32(len(h.mops)), pos: -1, val: v})
		// An earlier write of k by this transaction is now intermediate.
		for j := int32(len(h.mops)) - 1; j >= mop0; j-- {
			if p := h.mops[j]; p.key == k && p.kind == kind {
				h.vers[p.val].inter = true
				break
			}
		}
		out.val = id
	case mRead:
		if st != committed {
			break // only ok completions carry what was read
		}
		out.val = int32(len(h.reads))
		if h.w == RWRegister {
			h.reads = append(h.reads, readRec{txn: t, mop: int32(len(h.mops)), key: k, prefix: -1, val: v})
			break
		}
		list, ok := v.([]any)
		if !ok && v != nil {
			return mop{}, fmt.Errorf("a list-append read must return a list, not %s", history.FormatEDN(v))
		}
		for int(k) >= len(h.longest) {
			h.longest, h.longestLen = append(h.longest, -1), append(h.longestLen, 0)
		}
		if h.longest[k] < 0 || int32(len(list)) > h.longestLen[k] {
			h.longest[k], h.longestLen[k] = out.val, int32(len(list))
		}
		h.reads = append(h.reads, readRec{txn: t, mop: int32(len(h.mops)), key: k, prefix: -1, val: v})
	}
	return out, nil
}

// rewritten is the error for version id, whose value of its key an earlier
// version, prev, already has: the checker's inferences rest on every value
// being written once.
func (h *hist) rewritten(prev, id int32) error {
	v := &h.vers[id]
	t := v.writer
	i := int(v.wmop - h.txns[t].mop0)
	return history.OpErrorf(h.srcOp(t).Index, "op %d: micro-op %d %s: value %s of key %s was already written by op %d: values must be unique per key", h.srcOp(t).Index, i, fmtv(h.rawMop(t, i)), fmtv(v.val), h.keyName(v.key), h.srcOp(h.vers[prev].writer).Index)
}

// The functions as the EDN reader boxes them, for mopFunc's fast path.
var (
	kwAppend any = history.Keyword("append")
	kwRead   any = history.Keyword("r")
)

// mopFunc reads a micro-op's function and checks it fits the workload.
func mopFunc(f any, w Workload) (mopKind, error) {
	// Comparing interfaces skips the type switch and the string switch
	// for the two functions of nearly every list-append micro-op.
	switch {
	case f == kwRead:
		return mRead, nil
	case f == kwAppend && w == ListAppend:
		return mAppend, nil
	}
	var name string
	switch x := f.(type) {
	case history.Keyword:
		name = string(x)
	case string:
		name = x
	default:
		return 0, fmt.Errorf("function %s is not a keyword or string", history.FormatEDN(f))
	}
	switch name {
	case "r", "read":
		return mRead, nil
	case "append":
		if w == ListAppend {
			return mAppend, nil
		}
	case "w", "write":
		if w == RWRegister {
			return mWrite, nil
		}
	default:
		return 0, fmt.Errorf("unknown function %q (want append, r or w)", name)
	}
	return 0, fmt.Errorf("%s is not a %s operation", name, w)
}

// opIndex is the history index that names transaction t: its completion's, or
// its invocation's when it never completed.
func (h *hist) opIndex(t int32) int {
	tr := &h.txns[t]
	if tr.comp >= 0 {
		return int(h.ops[tr.comp].Index)
	}
	return int(h.ops[tr.inv].Index)
}

// txnMops returns t's micro-ops.
func (h *hist) txnMops(t int32) []mop {
	tr := &h.txns[t]
	return h.mops[tr.mop0 : tr.mop0+tr.nmop]
}

// srcOp is the op t's micro-ops were read from: the completion of an ok
// transaction, else the invocation.
func (h *hist) srcOp(t int32) *history.Op {
	tr := &h.txns[t]
	if tr.st == committed {
		return &h.ops[tr.comp]
	}
	return &h.ops[tr.inv]
}

// rawMop returns micro-op i of transaction t as the history spells it.
func (h *hist) rawMop(t int32, i int) any { return h.srcOp(t).Value.([]any)[i] }

// value returns transaction t's micro-ops as the history spells them.
func (h *hist) value(t int32) any { return h.srcOp(t).Value }

// inGraph reports whether t can be a vertex of a cycle: it committed or may have.
func (h *hist) inGraph(t int32) bool { return t >= 0 && h.txns[t].st != aborted }
