package history

import (
	"fmt"
	"strings"
)

// IsCoreField reports whether name is one of the op's own fields (index,
// time, process, type, f, key, value, error, node, fault_epoch), which an
// extra field may not be called: JSONL and EDN would read it back as the
// core field.
func IsCoreField(name string) bool { return fieldOf(name) != fieldExtra }

// WithExtra returns op with the fields of add set in its Extra, for a
// client that records more about an op than its value (a stream sequence, a
// zxid). The op's own Extra map is never written to, since an invocation's
// map may be shared with the generator's template; a fresh map holds the
// union, add winning. An empty add returns op unchanged and allocates
// nothing. A key that is empty or names a core field is an error.
func WithExtra(op Op, add map[string]any) (Op, error) {
	if len(add) == 0 {
		return op, nil
	}
	for k := range add {
		if k == "" {
			return op, fmt.Errorf("an extra field needs a name")
		}
		if IsCoreField(k) {
			return op, fmt.Errorf("extra field %q names a core op field; pick another name", k)
		}
	}
	m := make(map[string]any, len(op.Extra)+len(add))
	for k, v := range op.Extra {
		m[k] = v
	}
	for k, v := range add {
		m[k] = v
	}
	op.Extra = m
	return op, nil
}

// ExtraText spells extra fields for a reader, sorted by name, values in
// EDN: "zxid=12 stream_seq=5". It is "" when there are none.
func ExtraText(extra map[string]any) string {
	if len(extra) == 0 {
		return ""
	}
	var b strings.Builder
	var arr [8]string
	for i, k := range sortedKeys(extra, arr[:0]) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(FormatEDN(extra[k]))
	}
	return b.String()
}
