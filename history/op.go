// Package history holds the operation model that every part of faultline shares:
// the op record, the crash-safe JSONL journal, and importers/exporters for
// Jepsen's EDN and log formats.
package history

import (
	"math"
	"strconv"
)

// Type says what an op record is: an invocation or one of the three outcomes.
type Type string

// The four op types. Fail means the op definitely did not take effect; Info means
// it may or may not have, at any time up to the end of the history.
const (
	Invoke Type = "invoke"
	OK     Type = "ok"
	Fail   Type = "fail"
	Info   Type = "info"
)

// Valid reports whether t is one of the four op types.
func (t Type) Valid() bool {
	switch t {
	case Invoke, OK, Fail, Info:
		return true
	}
	return false
}

// Outcome is the completion type a client names in words ("ok", "fail" or
// "info"); ok is false for anything else, an invocation included.
func Outcome(s string) (t Type, ok bool) {
	switch t = Type(s); t {
	case OK, Fail, Info:
		return t, true
	}
	return "", false
}

// NemesisProcess is the process id of the nemesis. It is written as the string
// "nemesis" in JSONL and as :nemesis in EDN.
const NemesisProcess = -1

// NoProcess is the process of an op whose history names none: Jepsen's nil
// :process, as in Elle's examples (histories/paper-example.edn). Such ops
// are one process among themselves, as Jepsen pairs and orders them, and
// are written back as nil (null in JSONL).
const NoProcess = math.MinInt32

// ProcessName spells a process for messages: a number, "nemesis" or "nil".
func ProcessName(p int) string {
	switch p {
	case NemesisProcess:
		return "nemesis"
	case NoProcess:
		return "nil"
	}
	return strconv.Itoa(p)
}

// Keyword is an EDN keyword value (without the leading colon), such as the
// :timed-out in a Jepsen log line. Text encodings that have no keywords (JSON)
// write it as a plain string.
type Keyword string

// Op is one record of a history: an invocation, a completion, or a nemesis event.
//
// Value holds a generic value: nil, bool, int64, float64, string, Keyword,
// []any (EDN vectors and lists, JSON arrays), map[string]any (maps whose keys are
// strings or keywords), or Set (EDN sets). Importers normalise to these types so
// checkers see one shape whatever the source format was.
type Op struct {
	Index      int64          // dense position in the history, assigned when journaled
	Time       int64          // monotonic nanoseconds since the run started
	Process    int            // client process, NemesisProcess or NoProcess
	Type       Type           // invoke, ok, fail or info
	F          string         // the function: read, write, cas, txn, start-partition, ...
	Key        any            // optional key (nil when the op has none)
	Value      any            // the op's argument or result
	Error      any            // optional error (nil when none)
	Node       string         // node the client thread is bound to ("" if none)
	FaultEpoch int            // count of nemesis events before this op; 0 = none yet
	Extra      map[string]any // any other fields (nemesis evidence, ...), kept verbatim
}

// Set is an EDN set value; its elements keep their order of appearance.
type Set []any

// IsNemesis reports whether the op belongs to the nemesis.
func (o *Op) IsNemesis() bool { return o.Process == NemesisProcess }
