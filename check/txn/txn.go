// Package txn is faultline's Elle-class transactional consistency checker. It
// reads histories of transactions over list-append or read-write registers,
// infers version orders and a dependency graph from what clients observed, and
// names the anomalies it can prove, with the consistency models they rule out.
//
// Input: ops with F "txn" (or no F, as in Elle's examples) whose Value is a
// list of micro-ops [f k v], f being "append", "r" (or "read") and "w" (or
// "write"), as keywords or strings; keys and values are any generic value. A
// list-append read returns a list (nil is the empty list); a register read
// returns the value (nil is the initial state). Appended and written values
// must be unique per key. An ok transaction committed, a fail one did not,
// and an info one (or one that never completed) may have. Reads are taken
// from ok completions; writes of fail and info transactions from their
// invocations. Nemesis ops are ignored; a client op with another F is an
// input error (*history.OpError), never skipped.
//
// What it finds, without cycles: G1a (aborted read), G1b (intermediate read),
// internal (a transaction contradicts its own earlier reads and writes),
// future-read, garbage-read (a value nobody wrote, when the initial state is
// known: see Options.HasInit), lost-update, and for
// list-append dirty-update, duplicate-elements and incompatible-order; for
// rw-register cyclic-versions. With cycles in the dependency graph (ww, wr and
// rw edges, plus process and realtime edges when asked or implied by the
// models): G0, G1c, G-single-item, G-nonadjacent-item and G2-item (Elle's
// names: every anti-dependency here is on an item, none on a predicate), each
// also with a -process and a -realtime variant. As Elle, a cycle step is named
// by its data relation when its edge has one. Two more types make a result
// unknown rather than invalid, and are reported whatever the models:
// empty-transaction-graph and cycle-search-timeout. Every anomaly is
// explained in words, and every cycle also as Graphviz DOT. Models and what
// they forbid are Elle's lattice; see Models.
//
// How it works: keys and values are interned to ints; the graph has one int
// vertex per transaction and flat (CSR) adjacency with a bitmask of relations
// per edge; realtime edges are a transitive reduction (each transaction links
// only from those that completed most recently before it began); strongly
// connected components come from an iterative Tarjan; each component is then
// searched, within a time budget, for the most severe cycle of every class by
// breadth-first search under relation masks. The searches that can cost more
// than linear time stop at the budget; the linear ones always finish, so a
// component always yields at least one certain cycle.
//
// Limits, as in Elle: reads of info transactions are unknown and ignored; a
// list-append read that is not a prefix of its key's longest read is reported
// (incompatible-order) but contributes no dependency; rw-register version
// orders come only from the initial state and the sources asked for
// (transaction order, writes-follow-reads, sequential or linearizable keys;
// see versionOrder), so register histories yield fewer cycles than
// list-append ones.
package txn

import (
	"time"
)

// Workload names the data type the transactions operate on.
type Workload string

// The two workloads.
const (
	// ListAppend: keys are lists, writes append unique elements, reads return
	// the whole list, so every read reveals a prefix of the key's version order.
	ListAppend Workload = "list-append"
	// RWRegister: keys are registers, writes replace the value, reads return it.
	// Version orders can only be partly inferred (see Options).
	RWRegister Workload = "rw-register"
)

// Options say what to check.
type Options struct {
	Workload Workload // list-append or rw-register
	// ConsistencyModels to check; default ["strict-serializable"] unless
	// Anomalies are named, which are then the whole question. See Models.
	ConsistencyModels []string
	// Anomalies are extra anomaly names to treat as failures, in addition to
	// those the models forbid (for example "G2-item" under read-committed).
	Anomalies []string
	// CycleSearchBudget bounds the super-linear part of the cycle search per
	// strongly connected component; 0 means DefaultCycleSearchBudget.
	CycleSearchBudget time.Duration
	// Realtime and Process add realtime and process-order edges. Models with
	// "strict" or "strong" in their name imply realtime; "strong-session"
	// models imply process edges.
	Realtime, Process bool
	// WritesFollowReads (rw-register only) assumes that a committed
	// transaction which read a key and then wrote it installed its write after
	// the version it read. This orders more versions, and is what lets
	// cyclic-versions show. Elle calls it wfr-keys.
	WritesFollowReads bool
	// SequentialKeys (rw-register only) assumes every key is sequentially
	// consistent: along each process, the value a transaction left a key at
	// precedes the value the next transaction on that process to touch the
	// key found. Elle's sequential-keys?.
	SequentialKeys bool
	// LinearizableKeys (rw-register only) assumes every key is linearizable:
	// the same, along real-time order. Elle's linearizable-keys?.
	LinearizableKeys bool
	// TransactionOrder (rw-register only) is a known commit order: the
	// history index of a transaction's completion -> its position. The
	// values the ordered transactions wrote to each key are ordered alike.
	// As Elle's transaction-order, transactions it leaves out (ok or info
	// ones that completed) are taken to come first, in history order. An
	// empty map is no order at all (Elle would order every write by its
	// completion's place in the history).
	TransactionOrder map[int64]int
	// Init is the initial state, when HasInit says it is known. For
	// rw-register: one value every key starts at, or a map from key to value
	// whose keys are written as EDN without a keyword's colon ("x" for :x;
	// keys not in it start at nil). A read of the initial value reads the
	// initial state. Without HasInit every key starts at nil, and a read of
	// a value nobody wrote is taken, as Elle takes it, for an unrecorded
	// earlier value; with it, such a read is a garbage-read.
	//
	// For list-append the only initial state is the empty one (Init nil or
	// an empty list): with HasInit every key starts empty, so a read holding
	// an element nobody appended is a garbage-read. Without it (Elle's
	// case) such an element may predate the history: it takes its place in
	// the key's order, as in Elle, and gives rw edges but no ww or wr ones;
	// no garbage-read is reported, and a result that finds nothing the
	// models forbid is unknown, not valid, for Elle's list-append check
	// gives no verdict on such a history (its dirty-update pass asserts that
	// every element in a key's order was appended, and throws).
	Init    any
	HasInit bool
}

// DefaultCycleSearchBudget is the per-component budget when Options leave it 0.
const DefaultCycleSearchBudget = time.Second

// The three verdicts of Result.Valid.
const (
	Valid   = "valid"
	Invalid = "invalid"
	Unknown = "unknown"
)

// Result is the checker's verdict and the evidence behind it.
type Result struct {
	// Valid is "valid", "invalid" (an anomaly the models forbid was found) or
	// "unknown" (nothing could be checked, or a search the verdict depends on
	// ran out of budget or was cancelled).
	Valid string
	// AnomalyTypes lists, sorted, the anomaly types found that the chosen
	// models (or Options.Anomalies) forbid, and, as Elle reports them, the
	// two that make a result unknown: EmptyTransactionGraph and
	// CycleSearchTimeout. Only the forbidden ones make it invalid.
	AnomalyTypes []string
	// Anomalies holds up to MaxAnomaliesPerType examples per reported type.
	Anomalies map[string][]Anomaly
	// Counts has the number of cases found for every anomaly type, including
	// types the chosen models allow (those are not in Anomalies).
	Counts map[string]int
	// Not lists the weakest models that every anomaly found rules out;
	// AlsoNot the stronger models they rule out too. Both consider all anomaly
	// types found, forbidden or not (but a valid result, as Elle's, has
	// neither), and name models as Elle reports them
	// (friendly-boundary): strict-serializable (PL-SS) is
	// strong-serializable here.
	Not     []string
	AlsoNot []string
	Txns    int // transactions consumed: ok and info (indeterminate)
	Keys    int // distinct keys those transactions touched
	// Summary is one line; Explanation is multi-line text for people.
	Summary     string
	Explanation string
	// Incomplete says what could not be checked fully, e.g. "cycle search
	// timed out on an SCC of 40000 txns: a cycle exists".
	Incomplete []string
}

// MaxAnomaliesPerType caps the examples kept for one anomaly type; Result.Counts
// has the full count.
const MaxAnomaliesPerType = 100

// Anomaly is one case of an anomaly.
type Anomaly struct {
	Type string `json:"type"`
	// Ops are the history indices (Op.Index) of the transactions involved:
	// the completion's index, or the invocation's when there is none.
	Ops []int `json:"ops"`
	// Steps are a cycle's edges in order, the last back to the first
	// transaction; nil for an anomaly that is not a cycle.
	Steps       []Step `json:"steps,omitempty"`
	Explanation string `json:"explanation"` // words a person can follow
	DOT         string `json:"-"`           // for cycle anomalies: Graphviz DOT of the cycle
}

// Step is one edge of a cycle: the transaction at op From precedes the one
// at op To by relation Rel (ww, wr, rw, process, realtime), on Key for the
// data relations.
type Step struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Rel  string `json:"rel"`
	Key  string `json:"key,omitempty"`
	Why  string `json:"why"`
}
