package check

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/faultline/faultline/history"
)

// scriptLiteral renders v, a generic value as history and scenario options
// hold it, as a scenario would write it (Starlark literal syntax: None,
// True, "s", [1, 2], {"k": 1}, set([1])), so a checker's String reads like the
// call that made it. It reports false for a value a script cannot write (a
// set holding a list, say); callers then fall back to formatValue.
func scriptLiteral(v any) (string, bool) {
	var b strings.Builder
	if !writeLiteral(&b, v) {
		return "", false
	}
	return b.String(), true
}

func writeLiteral(b *strings.Builder, v any) bool {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(floatLiteral(x))
	case string:
		b.WriteString(quoteLiteral(x))
	case history.Keyword:
		b.WriteString(quoteLiteral(string(x)))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			if !writeLiteral(b, e) {
				return false
			}
		}
		b.WriteByte(']')
	case history.Set:
		// A Starlark set keeps the first of equal elements and holds only
		// hashable ones.
		var seen []string
		b.WriteString("set([")
		for _, e := range x {
			key, ok := setKey(e)
			if !ok {
				return false
			}
			if slices.Contains(seen, key) {
				continue
			}
			if len(seen) > 0 {
				b.WriteString(", ")
			}
			seen = append(seen, key)
			writeLiteral(b, e)
		}
		b.WriteString("])")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quoteLiteral(k))
			b.WriteString(": ")
			if !writeLiteral(b, x[k]) {
				return false
			}
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}

// setKey identifies a set element the way Starlark's equality does: 1 and
// 1.0 are one element, :x and "x" are one string; lists, maps and sets are
// unhashable.
func setKey(v any) (string, bool) {
	switch x := v.(type) {
	case int:
		return "n" + strconv.Itoa(x), true
	case int64:
		return "n" + strconv.FormatInt(x, 10), true
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return "n" + strconv.FormatInt(int64(x), 10), true
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64), true
	case string:
		return "s" + x, true
	case history.Keyword:
		return "s" + string(x), true
	case nil, bool:
		s, _ := scriptLiteral(x)
		return s, true
	}
	return "", false
}

// floatLiteral is Starlark's str of a float: the shortest %g, always with a
// '.' or an exponent so it reads as a float.
func floatLiteral(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// quoteLiteral quotes s as a Starlark string literal: Go's escapes, except
// that invalid UTF-8 bytes are \x escapes and other non-printables use the
// short \x form below 0x80.
func quoteLiteral(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteByte('"')
	for len(s) > 0 {
		r, width := utf8.DecodeRuneInString(s)
		switch {
		case width == 1 && r == utf8.RuneError:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[0]>>4])
			b.WriteByte(hex[s[0]&0xF])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case strconv.IsPrint(r):
			b.WriteString(s[:width])
		default:
			// strconv's escape of one rune matches Starlark's for every
			// non-printable but the ones above, which are handled there.
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		s = s[width:]
	}
	b.WriteByte('"')
	return b.String()
}
