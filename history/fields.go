package history

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// field identifies a core op field; fieldExtra is any other key.
type field uint8

const (
	fieldExtra field = iota
	fieldIndex
	fieldTime
	fieldProcess
	fieldType
	fieldF
	fieldKey
	fieldValue
	fieldError
	fieldNode
	fieldFaultEpoch
)

// fieldNames are the key names of the core fields, the same in JSONL and EDN.
var fieldNames = [...]string{
	fieldIndex:      "index",
	fieldTime:       "time",
	fieldProcess:    "process",
	fieldType:       "type",
	fieldF:          "f",
	fieldKey:        "key",
	fieldValue:      "value",
	fieldError:      "error",
	fieldNode:       "node",
	fieldFaultEpoch: "fault_epoch",
}

// fieldOf returns the core field a key names, or fieldExtra. A switch, unlike
// a map, costs no hashing, and string(bytes) in it does not allocate.
func fieldOf[T string | []byte](name T) field {
	switch string(name) {
	case "index":
		return fieldIndex
	case "time":
		return fieldTime
	case "process":
		return fieldProcess
	case "type":
		return fieldType
	case "f":
		return fieldF
	case "key":
		return fieldKey
	case "value":
		return fieldValue
	case "error":
		return fieldError
	case "node":
		return fieldNode
	case "fault_epoch":
		return fieldFaultEpoch
	}
	return fieldExtra
}

// opBuilder assembles an Op from the key/value pairs of a JSON object or EDN map
// as a reader meets them, checking each field's type.
type opBuilder struct {
	op   Op
	seen uint16 // bit per core field
	edn  bool   // spell keys the EDN way (:type) in messages
}

// label spells a key name for a message.
func (b *opBuilder) label(name string) string {
	if b.edn {
		return ":" + name
	}
	return strconv.Quote(name)
}

// dup reports whether the key was already set.
func (b *opBuilder) dup(f field, name string) bool {
	if f != fieldExtra {
		return b.seen&(1<<f) != 0
	}
	_, ok := b.op.Extra[name]
	return ok
}

// set stores v in the field; name is the key name, needed for Extra. The error
// is a bare message: the reader knows where the value was.
func (b *opBuilder) set(f field, name string, v any) error {
	switch f {
	case fieldKey:
		b.op.Key = v
	case fieldValue:
		b.op.Value = v
	case fieldError:
		b.op.Error = v
	case fieldExtra:
		if b.op.Extra == nil {
			b.op.Extra = make(map[string]any)
		}
		b.op.Extra[name] = v
	default:
		switch x := v.(type) {
		case int64:
			return b.setInt(f, x)
		case string:
			return b.setText(f, x, false)
		case Keyword:
			return b.setText(f, string(x), true)
		case nil:
			if f == fieldProcess {
				b.op.Process = NoProcess
				b.seen |= 1 << f
				return nil
			}
			if f == fieldF || f == fieldNode || f == fieldFaultEpoch {
				b.seen |= 1 << f
				return nil
			}
		}
		return b.mismatch(f, v)
	}
	b.seen |= 1 << f
	return nil
}

// setInt stores an integer in a core field. Readers call it directly to skip
// boxing the number.
func (b *opBuilder) setInt(f field, n int64) error {
	switch f {
	case fieldIndex:
		b.op.Index = n
	case fieldTime:
		b.op.Time = n
	case fieldProcess, fieldFaultEpoch:
		if int64(int(n)) != n {
			return b.mismatch(f, n)
		}
		if f == fieldProcess {
			if n == NoProcess {
				return b.mismatch(f, n) // the spelling of nil, not a process
			}
			b.op.Process = int(n)
		} else {
			b.op.FaultEpoch = int(n)
		}
	default:
		return b.mismatch(f, n)
	}
	b.seen |= 1 << f
	return nil
}

// setText stores a string or keyword in a core field. Readers call it directly
// with interned text to skip allocating.
func (b *opBuilder) setText(f field, s string, keyword bool) error {
	switch {
	case f == fieldType && Type(s).Valid():
		b.op.Type = Type(s)
	case f == fieldProcess && s == "nemesis":
		b.op.Process = NemesisProcess
	case f == fieldF:
		b.op.F = s
	case f == fieldNode:
		b.op.Node = s
	default:
		if keyword {
			return b.mismatch(f, Keyword(s))
		}
		return b.mismatch(f, s)
	}
	b.seen |= 1 << f
	return nil
}

// mismatch says what field f must hold and what it got.
func (b *opBuilder) mismatch(f field, v any) error {
	var want string
	switch f {
	case fieldIndex, fieldTime:
		want = "an integer"
	case fieldFaultEpoch:
		want = "an integer or nothing"
	case fieldProcess:
		nil_ := "nil"
		if !b.edn {
			nil_ = "null"
		}
		want = "a process number, " + b.label("nemesis") + " or " + nil_
	case fieldType:
		want = "one of invoke, ok, fail or info"
	default: // f and node
		want = "a string, a keyword or nothing"
	}
	return fmt.Errorf("%s: expected %s, found %s", b.label(fieldNames[f]), want, describe(v, b.edn))
}

// isIntField and isTextField pick the core fields whose values readers store
// without boxing.
func isIntField(f field) bool {
	return f == fieldIndex || f == fieldTime || f == fieldProcess || f == fieldFaultEpoch
}

func isTextField(f field) bool { return f == fieldType || f == fieldF || f == fieldNode }

// maxInterned bounds an interner, so a history of unique strings costs no more
// than it would without one.
const maxInterned = 4096

// interner shares the text of repeated strings (op types, functions, node
// names) so that readers allocate each once, not once per op. A nil
// *interner just converts.
type interner map[string]string

func (in *interner) intern(b []byte) string {
	if in == nil {
		return string(b)
	}
	if s, ok := (*in)[string(b)]; ok {
		return s
	}
	s := string(b)
	if *in == nil {
		*in = make(interner)
	}
	if len(*in) < maxInterned {
		(*in)[s] = s
	}
	return s
}

// parseDecimal converts integer text ([+-]digits) to int64, reporting false
// for anything else or on overflow. Unlike strconv it never allocates.
func parseDecimal(text []byte) (int64, bool) {
	i, neg := 0, false
	if len(text) > 0 && (text[0] == '+' || text[0] == '-') {
		i, neg = 1, text[0] == '-'
	}
	if i == len(text) {
		return 0, false
	}
	var n uint64
	for ; i < len(text); i++ {
		if !isDigit(text[i]) || n > math.MaxInt64/10+1 {
			return 0, false
		}
		n = n*10 + uint64(text[i]-'0')
	}
	if limit := uint64(math.MaxInt64) + b2u(neg); n > limit {
		return 0, false
	}
	if neg {
		return -int64(n), true // wraps to MinInt64 for n = 1<<63, as wanted
	}
	return int64(n), true
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// finish checks that the required fields are present and fills the missing
// index and time with the op's ordinal position, so order survives.
func (b *opBuilder) finish(ordinal int64) (Op, error) {
	if b.seen&(1<<fieldType) == 0 {
		return Op{}, fmt.Errorf("op has no %s", b.label(fieldNames[fieldType]))
	}
	if b.seen&(1<<fieldProcess) == 0 {
		// Jepsen's nil process, as Elle's examples leave it out.
		b.op.Process = NoProcess
	}
	if b.seen&(1<<fieldIndex) == 0 {
		b.op.Index = ordinal
	}
	if b.seen&(1<<fieldTime) == 0 {
		b.op.Time = ordinal
	}
	return b.op, nil
}

// textOf returns the text of a string or keyword.
func textOf(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case Keyword:
		return string(s), true
	}
	return "", false
}

// describe names a value for an error message, in the vocabulary of the format.
func describe(v any, edn bool) string {
	switch v := v.(type) {
	case nil:
		if edn {
			return "nil"
		}
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return "the integer " + strconv.FormatInt(v, 10)
	case float64:
		return "the number " + strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		return "the string " + strconv.Quote(clip([]byte(v)))
	case Keyword:
		return "the keyword :" + clip([]byte(v))
	case Set:
		return "a set"
	case []any:
		if edn {
			return "a vector"
		}
		return "an array"
	case map[string]any:
		if edn {
			return "a map"
		}
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// errReservedExtra is reported by writers for an Extra key that names a core
// field: written out, it would be read back as that field.
var errReservedExtra = errors.New("an Op.Extra key names a core field")
