package history

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ParseJSONLine parses one JSONL history line. Missing index and time are 0.
// Errors are *ParseError with Line 1 and no File.
func ParseJSONLine(line []byte) (Op, error) {
	r := jsonReader{data: line}
	op, err := r.readOp(0)
	if err != nil {
		return Op{}, err
	}
	return op, nil
}

// readJSONL reads a JSONL history. A last line without a newline that ends
// mid-object is a torn write: it is dropped and truncated is true.
func readJSONL(data []byte) (ops []Op, lines []int, truncated bool, err error) {
	ops = make([]Op, 0, bytes.Count(data, []byte{'\n'})+1)
	lines = make([]int, 0, cap(ops))
	var strs interner
	for off, lineNo := 0, 1; off < len(data); lineNo++ {
		line, next := nextLine(data, off)
		last := next == len(data) && data[len(data)-1] != '\n'
		off = next
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r := jsonReader{data: line, strs: &strs}
		op, err := r.readOp(int64(len(ops)))
		if err != nil {
			if last && r.atEOF {
				return ops, lines, true, nil
			}
			err.Line = lineNo
			return nil, nil, false, err
		}
		ops, lines = append(ops, op), append(lines, lineNo)
	}
	return ops, lines, false, nil
}

// jsonReader parses JSON from one line.
type jsonReader struct {
	data  []byte
	pos   int
	depth int
	atEOF bool // the error was running out of input (a torn line)
	strs  *interner
}

func (r *jsonReader) errorf(off int, format string, args ...any) *ParseError {
	return errorAt(r.data, off, format, args...)
}

// found describes what is at the current position.
func (r *jsonReader) found() string {
	if r.pos >= len(r.data) {
		r.atEOF = true
		return "end of line"
	}
	return foundRune(r.data[r.pos:])
}

func (r *jsonReader) skipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\r', '\n':
			r.pos++
		default:
			return
		}
	}
}

// expect consumes byte c after optional space, or fails saying what it wanted.
func (r *jsonReader) expect(c byte, what string) *ParseError {
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == c {
		r.pos++
		return nil
	}
	return r.errorf(r.pos, "expected %s, found %s", what, r.found())
}

// readOp parses the op object that makes up the whole line.
func (r *jsonReader) readOp(ordinal int64) (Op, *ParseError) {
	if err := r.expect('{', "an op object '{'"); err != nil {
		return Op{}, err
	}
	b := opBuilder{}
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == '}' {
		r.pos++
	} else {
		for {
			r.skipSpace()
			keyOff := r.pos
			if r.pos >= len(r.data) || r.data[r.pos] != '"' {
				return Op{}, r.errorf(r.pos, "expected a quoted key, found %s", r.found())
			}
			key, err := r.readStringBytes()
			if err != nil {
				return Op{}, err
			}
			f := fieldOf(key)
			name := fieldNames[f]
			if f == fieldExtra {
				name = string(key)
			}
			if b.dup(f, name) {
				return Op{}, r.errorf(keyOff, "duplicate key %q", name)
			}
			if err := r.expect(':', "':' after the key"); err != nil {
				return Op{}, err
			}
			if err := r.readField(&b, f, name); err != nil {
				return Op{}, err
			}
			r.skipSpace()
			if r.pos < len(r.data) && r.data[r.pos] == ',' {
				r.pos++
				continue
			}
			if r.pos < len(r.data) && r.data[r.pos] == '}' {
				r.pos++
				break
			}
			return Op{}, r.errorf(r.pos, "expected ',' or '}' after the value of %q, found %s", name, r.found())
		}
	}
	r.skipSpace()
	if r.pos < len(r.data) {
		return Op{}, r.errorf(r.pos, "expected the end of the line after the op object, found %s", r.found())
	}
	op, err := b.finish(ordinal)
	if err != nil {
		return Op{}, r.errorf(0, "%v", err)
	}
	return op, nil
}

// readField reads the value of an op key into b. Integers and strings of the
// scalar core fields skip the boxed generic path.
func (r *jsonReader) readField(b *opBuilder, f field, name string) *ParseError {
	r.skipSpace()
	off := r.pos
	var err error
	switch {
	case r.pos < len(r.data) && isIntField(f) && (r.data[r.pos] == '-' || isDigit(r.data[r.pos])):
		text, kind, perr := r.scanNumber()
		if perr != nil {
			return perr
		}
		if n, ok := parseDecimal(text); kind == numInt && ok {
			err = b.setInt(f, n)
			break
		}
		v, perr := r.number(text, kind, off)
		if perr != nil {
			return perr
		}
		err = b.set(f, name, v)
	case r.pos < len(r.data) && isTextField(f) && r.data[r.pos] == '"':
		text, perr := r.readStringBytes()
		if perr != nil {
			return perr
		}
		err = b.setText(f, r.strs.intern(text), false)
	default:
		v, perr := r.readValue()
		if perr != nil {
			return perr
		}
		err = b.set(f, name, v)
	}
	if err != nil {
		return r.errorf(off, "%v", err)
	}
	return nil
}

func (r *jsonReader) readValue() (any, *ParseError) {
	r.skipSpace()
	if r.pos >= len(r.data) {
		return nil, r.errorf(r.pos, "expected a JSON value, found %s", r.found())
	}
	switch c := r.data[r.pos]; {
	case c == '"':
		s, err := r.readStringBytes()
		return string(s), err
	case c == '{':
		return r.readObject()
	case c == '[':
		return r.readArray()
	case c == '-' || isDigit(c):
		return r.readNumber()
	case c == 't':
		return true, r.literal("true")
	case c == 'f':
		return false, r.literal("false")
	case c == 'n':
		return nil, r.literal("null")
	}
	return nil, r.errorf(r.pos, "expected a JSON value, found %s", r.found())
}

func (r *jsonReader) literal(word string) *ParseError {
	start := r.pos
	for i := 0; i < len(word); i++ {
		if r.pos >= len(r.data) || r.data[r.pos] != word[i] {
			return r.errorf(start, "expected %s, found %s", word, r.found())
		}
		r.pos++
	}
	return nil
}

func (r *jsonReader) enter(off int) *ParseError {
	if r.depth++; r.depth > maxDepth {
		return r.errorf(off, "values nest deeper than %d levels", maxDepth)
	}
	return nil
}

func (r *jsonReader) readArray() (any, *ParseError) {
	if err := r.enter(r.pos); err != nil {
		return nil, err
	}
	r.pos++ // '['
	out := []any{}
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == ']' {
		r.pos++
		r.depth--
		return out, nil
	}
	for {
		v, err := r.readValue()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		r.skipSpace()
		if r.pos < len(r.data) && r.data[r.pos] == ',' {
			r.pos++
			continue
		}
		if err := r.expect(']', "',' or ']' in an array"); err != nil {
			return nil, err
		}
		r.depth--
		return out, nil
	}
}

func (r *jsonReader) readObject() (any, *ParseError) {
	if err := r.enter(r.pos); err != nil {
		return nil, err
	}
	r.pos++ // '{'
	out := map[string]any{}
	r.skipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == '}' {
		r.pos++
		r.depth--
		return out, nil
	}
	for {
		r.skipSpace()
		keyOff := r.pos
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return nil, r.errorf(r.pos, "expected a quoted key, found %s", r.found())
		}
		kb, err := r.readStringBytes()
		if err != nil {
			return nil, err
		}
		key := string(kb)
		if _, dup := out[key]; dup {
			return nil, r.errorf(keyOff, "duplicate key %q", key)
		}
		if err := r.expect(':', "':' after the key"); err != nil {
			return nil, err
		}
		v, err := r.readValue()
		if err != nil {
			return nil, err
		}
		out[key] = v
		r.skipSpace()
		if r.pos < len(r.data) && r.data[r.pos] == ',' {
			r.pos++
			continue
		}
		if err := r.expect('}', "',' or '}' in an object"); err != nil {
			return nil, err
		}
		r.depth--
		return out, nil
	}
}

// readNumber reads a JSON number: an integer becomes int64, anything with a
// fraction or exponent float64.
func (r *jsonReader) readNumber() (any, *ParseError) {
	start := r.pos
	text, kind, err := r.scanNumber()
	if err != nil {
		return nil, err
	}
	return r.number(text, kind, start)
}

// scanNumber moves past a JSON number, checking its grammar.
func (r *jsonReader) scanNumber() (text []byte, kind numKind, err *ParseError) {
	start := r.pos
	digits := func() bool {
		from := r.pos
		for r.pos < len(r.data) && isDigit(r.data[r.pos]) {
			r.pos++
		}
		return r.pos > from
	}
	if r.data[r.pos] == '-' {
		r.pos++
	}
	if r.pos < len(r.data) && r.data[r.pos] == '0' {
		r.pos++
	} else if !digits() {
		return nil, 0, r.errorf(r.pos, "expected a digit, found %s", r.found())
	}
	if r.pos < len(r.data) && r.data[r.pos] == '.' {
		r.pos++
		kind = numFloat
		if !digits() {
			return nil, 0, r.errorf(r.pos, "expected a digit after '.', found %s", r.found())
		}
	}
	if r.pos < len(r.data) && (r.data[r.pos] == 'e' || r.data[r.pos] == 'E') {
		r.pos++
		kind = numFloat
		if r.pos < len(r.data) && (r.data[r.pos] == '+' || r.data[r.pos] == '-') {
			r.pos++
		}
		if !digits() {
			return nil, 0, r.errorf(r.pos, "expected a digit in the exponent, found %s", r.found())
		}
	}
	if r.pos < len(r.data) && isDigit(r.data[r.pos]) {
		return nil, 0, r.errorf(start, "expected a number without leading zeros, found %q", clip(r.data[start:r.pos+1]))
	}
	return r.data[start:r.pos], kind, nil
}

// number converts scanned number text that began at off.
func (r *jsonReader) number(text []byte, kind numKind, off int) (any, *ParseError) {
	v, msg := parseNumber(text, kind)
	if msg != "" {
		return nil, r.errorf(off, "%s", msg)
	}
	return v, nil
}

// numKind says how scanned number text is spelled.
type numKind uint8

const (
	numInt   numKind = iota // [+-]digits
	numFloat                // with a fraction and/or an exponent
	numHex                  // [+-]0x digits, as Clojure prints object hashes
)

// parseNumber converts validated number text to int64 or float64; the EDN
// reader shares it. A non-empty msg says why it does not fit.
func parseNumber(text []byte, kind numKind) (v any, msg string) {
	switch kind {
	case numFloat:
		f, err := strconv.ParseFloat(string(text), 64)
		if err != nil {
			return nil, "number " + clip(text) + " is out of range for a 64-bit float"
		}
		return f, ""
	case numHex:
		n, err := strconv.ParseInt(string(text), 0, 64)
		if err != nil {
			return nil, "integer " + clip(text) + " is out of range for 64 bits"
		}
		return n, ""
	}
	n, ok := parseDecimal(text)
	if !ok {
		return nil, "integer " + clip(text) + " is out of range for 64 bits"
	}
	return n, ""
}

// readStringBytes reads a quoted string. Without escapes the result aliases the
// input, so callers that keep it must copy (string conversion does). Invalid
// UTF-8 becomes U+FFFD, as in encoding/json.
func (r *jsonReader) readStringBytes() ([]byte, *ParseError) {
	open := r.pos
	r.pos++ // '"'
	start := r.pos
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		if c == '"' {
			r.pos++
			return r.data[start : r.pos-1], nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		r.pos++
	}
	buf := append([]byte(nil), r.data[start:r.pos]...)
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		switch {
		case c == '"':
			r.pos++
			return buf, nil
		case c < 0x20:
			return nil, r.errorf(r.pos, "expected '\"' to close the string, found control character %#02x (escape it)", c)
		case c == '\\':
			var err *ParseError
			if buf, err = r.escape(buf); err != nil {
				return nil, err
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			r.pos++
		default:
			ru, size := utf8.DecodeRune(r.data[r.pos:])
			buf = utf8.AppendRune(buf, ru)
			r.pos += size
		}
	}
	return nil, r.errorf(open, "expected '\"' to close the string, found %s", r.found())
}

// escape decodes the backslash escape at r.pos onto buf.
func (r *jsonReader) escape(buf []byte) ([]byte, *ParseError) {
	start := r.pos
	r.pos++
	if r.pos >= len(r.data) {
		return nil, r.errorf(r.pos, "expected an escape character after '\\', found %s", r.found())
	}
	c := r.data[r.pos]
	r.pos++
	switch c {
	case '"', '\\', '/':
		return append(buf, c), nil
	case 'b':
		return append(buf, '\b'), nil
	case 'f':
		return append(buf, '\f'), nil
	case 'n':
		return append(buf, '\n'), nil
	case 'r':
		return append(buf, '\r'), nil
	case 't':
		return append(buf, '\t'), nil
	case 'u':
		ru, err := r.hex4(start)
		if err != nil {
			return nil, err
		}
		if utf16.IsSurrogate(ru) {
			// A high surrogate may pair with a following \u low surrogate.
			if r.pos+1 < len(r.data) && r.data[r.pos] == '\\' && r.data[r.pos+1] == 'u' {
				save := r.pos
				r.pos += 2
				lo, err := r.hex4(save)
				if err != nil {
					return nil, err
				}
				if pair := utf16.DecodeRune(ru, lo); pair != utf8.RuneError {
					return utf8.AppendRune(buf, pair), nil
				}
				r.pos = save
			}
			ru = utf8.RuneError
		}
		return utf8.AppendRune(buf, ru), nil
	}
	r.pos--
	return nil, r.errorf(start, `expected one of \" \\ \/ \b \f \n \r \t \uXXXX after '\', found %s`, r.found())
}

// hex4 reads the four hex digits of a \u escape that began at start.
func (r *jsonReader) hex4(start int) (rune, *ParseError) {
	if r.pos+4 > len(r.data) {
		r.pos = len(r.data)
		return 0, r.errorf(start, "expected four hex digits after \\u, found %s", r.found())
	}
	n, err := strconv.ParseUint(string(r.data[r.pos:r.pos+4]), 16, 32)
	if err != nil {
		return 0, r.errorf(start, "expected four hex digits after \\u, found %q", r.data[r.pos:r.pos+4])
	}
	r.pos += 4
	return rune(n), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// foundRune quotes the character at the start of b for an error message.
func foundRune(b []byte) string {
	ru, _ := utf8.DecodeRune(b)
	if ru == utf8.RuneError && len(b) > 0 && b[0] >= utf8.RuneSelf {
		return "invalid UTF-8"
	}
	return strconv.QuoteRune(ru)
}
