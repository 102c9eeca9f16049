package history

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 1000

// ednReader parses EDN values into the generic value model: keywords become
// Keyword, symbols and characters strings, vectors and lists []any, sets Set,
// maps map[string]any (keyword, string, symbol and integer keys, the last
// spelled in decimal), and a tagged literal the value it tags (#inst "..." is
// its string, a record literal its map).
type ednReader struct {
	data  []byte
	pos   int
	depth int
	kw    map[string]any              // keywords seen so far, boxed once
	strs  interner                    // op field strings seen so far
	line  bool                        // the input is one log line: its end is "end of line"
	lean  leanState                   // the op-value fast path's buffers (ednread.go)
	last  [fieldFaultEpoch + 1]string // the last text of each op field, for textOf
	// defaultedIndex and defaultedTime say the last op read had no index
	// or time, so its ordinal filled them (readEDNSplit renumbers those).
	defaultedIndex, defaultedTime bool
}

func (r *ednReader) errorf(off int, format string, args ...any) *ParseError {
	return errorAt(r.data, off, format, args...)
}

func (r *ednReader) eof() bool { return r.pos >= len(r.data) }

// found describes what is at the current position.
func (r *ednReader) found() string {
	if r.eof() {
		if r.line {
			return "end of line"
		}
		return "end of input"
	}
	return foundRune(r.data[r.pos:])
}

// where spells the position of offset off as line:col.
func (r *ednReader) where(off int) string {
	e := r.errorf(off, "")
	return strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col)
}

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', ',':
		return true
	}
	return false
}

// isConstituent reports whether c can be part of a symbol, keyword or number
// token. Bytes of multi-byte UTF-8 characters are constituents.
func isConstituent(c byte) bool {
	if c <= ' ' || c == 0x7f {
		return false
	}
	switch c {
	case '"', ';', '(', ')', '[', ']', '{', '}', '\\', '^', '`', '~', '@', ',':
		return false
	}
	return true
}

// constituents is isConstituent as a table: token's loop is the reader's
// innermost, run for every byte of every number and keyword.
var constituents = func() (t [256]bool) {
	for c := range t {
		t[c] = isConstituent(byte(c))
	}
	return t
}()

// skip moves past whitespace, commas, ; comments and #_ discarded forms.
func (r *ednReader) skip() *ParseError {
	for !r.eof() {
		c := r.data[r.pos]
		switch {
		case isSpace(c):
			r.pos = r.spaceEnd(r.pos + 1)
		case c == ';':
			for !r.eof() && r.data[r.pos] != '\n' {
				r.pos++
			}
		case c == '#' && r.pos+1 < len(r.data) && r.data[r.pos+1] == '_':
			if _, err := r.readPrefixed(r.pos, r.pos+2); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// spaceEnd returns the offset of the first byte from i that is not
// whitespace or a comma.
func (r *ednReader) spaceEnd(i int) int {
	data := r.data // a local: the loop then keeps it and i in registers
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// token returns the run of constituent bytes at the current position.
func (r *ednReader) token() []byte {
	data, start := r.data, r.pos
	i := start
	for i < len(data) && constituents[data[i]] {
		i++
	}
	r.pos = i
	return data[start:i]
}

// readValue reads the next value, skipping what comes before it.
func (r *ednReader) readValue() (any, *ParseError) {
	if err := r.skip(); err != nil {
		return nil, err
	}
	if r.eof() {
		return nil, r.errorf(r.pos, "expected a value, found %s", r.found())
	}
	start := r.pos
	c := r.data[r.pos]
	switch {
	case c == '"':
		b, err := r.readStringBytes()
		return string(b), err
	case c == ':':
		return r.readKeyword()
	case c == '\\':
		return r.readChar()
	case c == '[':
		return r.readSeq(start, ']', "vector")
	case c == '(':
		return r.readSeq(start, ')', "list")
	case c == '{':
		return r.readMap()
	case c == '#':
		return r.readDispatch()
	case r.startsNumber():
		return r.readNumber()
	case isConstituent(c) && c != '\'':
		tok := r.token()
		switch string(tok) {
		case "nil":
			return nil, nil
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		if !utf8.Valid(tok) {
			return nil, r.errorf(start, "symbol %q is not valid UTF-8", tok)
		}
		return string(tok), nil
	}
	return nil, r.errorf(start, "expected a value, found %s", r.found())
}

// startsNumber reports whether a number token starts here: a digit, or a sign
// and a digit (a sign alone starts a symbol).
func (r *ednReader) startsNumber() bool {
	c := r.data[r.pos]
	return isDigit(c) || (c == '+' || c == '-') && r.pos+1 < len(r.data) && isDigit(r.data[r.pos+1])
}

// enter and leave track nesting depth.
func (r *ednReader) enter(off int) *ParseError {
	if r.depth++; r.depth > maxDepth {
		return r.errorf(off, "values nest deeper than %d levels", maxDepth)
	}
	return nil
}

func (r *ednReader) leave() { r.depth-- }

// readPrefixed reads the value after the prefix from start to end (a #_
// discard or a #tag), counting the prefix as a level of nesting since
// prefixes can be chained.
func (r *ednReader) readPrefixed(start, end int) (any, *ParseError) {
	if err := r.enter(start); err != nil {
		return nil, err
	}
	r.pos = end
	v, err := r.readValue()
	r.leave()
	return v, err
}

// isCloser reports whether c ends a collection.
func isCloser(c byte) bool { return c == ')' || c == ']' || c == '}' }

// closeOrNext skips to the next element of a collection opened at open. It
// reports true when it consumed the closing byte.
func (r *ednReader) closeOrNext(closer byte, kind string, open int) (bool, *ParseError) {
	if err := r.skip(); err != nil {
		return false, err
	}
	if r.eof() {
		return false, r.errorf(r.pos, "expected %q to close the %s opened at %s, found %s", closer, kind, r.where(open), r.found())
	}
	switch c := r.data[r.pos]; {
	case c == closer:
		r.pos++
		return true, nil
	case isCloser(c):
		return false, r.errorf(r.pos, "expected %q to close the %s opened at %s, found %q", closer, kind, r.where(open), c)
	}
	return false, nil
}

// readSeq reads the elements of a vector, list or set that began at open, up
// to closer; r.pos is at the opening bracket.
func (r *ednReader) readSeq(open int, closer byte, kind string) ([]any, *ParseError) {
	if err := r.enter(open); err != nil {
		return nil, err
	}
	r.pos++
	out := []any{}
	for {
		done, err := r.closeOrNext(closer, kind, open)
		if err != nil {
			return nil, err
		}
		if done {
			r.leave()
			return out, nil
		}
		v, err := r.readValue()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

func (r *ednReader) readMap() (map[string]any, *ParseError) {
	open := r.pos
	if err := r.enter(open); err != nil {
		return nil, err
	}
	r.pos++
	out := map[string]any{}
	for {
		done, err := r.closeOrNext('}', "map", open)
		if err != nil {
			return nil, err
		}
		if done {
			r.leave()
			return out, nil
		}
		keyOff := r.pos
		k, err := r.readValue()
		if err != nil {
			return nil, err
		}
		key, ok := "", true
		switch k := k.(type) {
		case Keyword:
			key = string(k)
		case string:
			key = k
		case int64:
			key = strconv.FormatInt(k, 10)
		default:
			ok = false
		}
		if !ok {
			return nil, r.errorf(keyOff, "map key %s is not supported: keys must be keywords, strings or integers", describe(k, true))
		}
		if _, dup := out[key]; dup {
			return nil, r.errorf(keyOff, "duplicate map key %q", key)
		}
		v, err := r.readMapValue(key)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
}

// readMapValue reads the value after a map key, refusing the map's end.
func (r *ednReader) readMapValue(key string) (any, *ParseError) {
	if err := r.skip(); err != nil {
		return nil, err
	}
	if r.eof() || r.data[r.pos] == '}' {
		return nil, r.errorf(r.pos, "expected a value for map key %q, found %s", key, r.found())
	}
	return r.readValue()
}

// readDispatch reads a form starting with '#'.
func (r *ednReader) readDispatch() (any, *ParseError) {
	start := r.pos
	r.pos++
	if r.eof() {
		return nil, r.errorf(start, "expected a set, a tag or ##Inf/##NaN after '#', found %s", r.found())
	}
	switch c := r.data[r.pos]; {
	case c == '{':
		v, err := r.readSeq(start, '}', "set")
		return Set(v), err
	case c == '#':
		r.pos++
		switch tok := r.token(); string(tok) {
		case "Inf":
			return math.Inf(1), nil
		case "-Inf":
			return math.Inf(-1), nil
		case "NaN":
			return math.NaN(), nil
		}
		return nil, r.errorf(start, "expected ##Inf, ##-Inf or ##NaN, found %q", clip(r.data[start:r.pos]))
	case isTagStart(c):
		r.token() // #inst, #uuid, a record name: the value stands for itself
		return r.readPrefixed(start, r.pos)
	}
	return nil, r.errorf(start, "expected a set #{...}, a discard #_, ##Inf/##NaN or a tag like #inst after '#', found %s", r.found())
}

// isTagStart reports whether c can start a tag (#inst) or record name.
func isTagStart(c byte) bool { return isASCIILetter(c) || c >= utf8.RuneSelf }

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// readKeyword reads :name; each distinct keyword is boxed once per reader.
func (r *ednReader) readKeyword() (any, *ParseError) {
	start := r.pos
	r.pos++
	tok := r.token()
	if len(tok) == 0 {
		return nil, r.errorf(start, "expected a keyword name after ':', found %s", r.found())
	}
	if v, ok := r.kw[string(tok)]; ok {
		return v, nil
	}
	if !utf8.Valid(tok) {
		return nil, r.errorf(start, "keyword %q is not valid UTF-8", tok)
	}
	if r.kw == nil {
		r.kw = make(map[string]any)
	}
	v := any(Keyword(tok))
	r.kw[string(tok)] = v
	return v, nil
}

// charNames are the named EDN characters.
var charNames = map[string]string{
	"newline": "\n", "space": " ", "tab": "\t", "return": "\r", "backspace": "\b", "formfeed": "\f",
}

// readChar reads a character literal such as \a or \newline as a string.
func (r *ednReader) readChar() (any, *ParseError) {
	start := r.pos
	r.pos++
	if r.eof() {
		return nil, r.errorf(start, "expected a character after '\\', found %s", r.found())
	}
	if !isASCIILetter(r.data[r.pos]) { // a single character, such as \( or \é
		ru, size := utf8.DecodeRune(r.data[r.pos:])
		if ru == utf8.RuneError && size <= 1 || ru <= ' ' {
			return nil, r.errorf(start, "expected a character after '\\', found %s", r.found())
		}
		r.pos += size
		return string(ru), nil
	}
	tok := r.token()
	if len(tok) == 1 {
		return string(tok), nil
	}
	if s, ok := charNames[string(tok)]; ok {
		return s, nil
	}
	base, digits := 16, tok[1:]
	if tok[0] == 'o' {
		base = 8
	}
	if (tok[0] == 'u' && len(digits) == 4) || (tok[0] == 'o' && len(digits) <= 3) {
		if n, err := strconv.ParseUint(string(digits), base, 32); err == nil && (base == 16 || n <= 0o377) {
			return string(rune(n)), nil
		}
	}
	return nil, r.errorf(start, "expected a character such as \\a, \\newline or \\u0041, found \\%s", clip(tok))
}

// readStringBytes reads a quoted string. Without escapes the result aliases
// the input, so callers that keep it must copy (string conversion does).
// Invalid UTF-8 becomes U+FFFD.
func (r *ednReader) readStringBytes() ([]byte, *ParseError) {
	open := r.pos
	r.pos++
	start := r.pos
	for !r.eof() {
		c := r.data[r.pos]
		if c == '"' {
			r.pos++
			return r.data[start : r.pos-1], nil
		}
		if c == '\\' || c >= utf8.RuneSelf {
			break
		}
		r.pos++
	}
	buf := append([]byte(nil), r.data[start:r.pos]...)
	for !r.eof() {
		c := r.data[r.pos]
		switch {
		case c == '"':
			r.pos++
			return buf, nil
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

// escape decodes the string escape at r.pos onto buf.
func (r *ednReader) escape(buf []byte) ([]byte, *ParseError) {
	start := r.pos
	r.pos++
	if r.eof() {
		return nil, r.errorf(start, "expected an escape character after '\\', found %s", r.found())
	}
	c := r.data[r.pos]
	r.pos++
	switch c {
	case '"', '\\':
		return append(buf, c), nil
	case 'n':
		return append(buf, '\n'), nil
	case 't':
		return append(buf, '\t'), nil
	case 'r':
		return append(buf, '\r'), nil
	case 'b':
		return append(buf, '\b'), nil
	case 'f':
		return append(buf, '\f'), nil
	case 'u':
		if r.pos+4 <= len(r.data) {
			if n, err := strconv.ParseUint(string(r.data[r.pos:r.pos+4]), 16, 32); err == nil {
				r.pos += 4
				ru := rune(n)
				if utf16.IsSurrogate(ru) && r.pos+6 <= len(r.data) && r.data[r.pos] == '\\' && r.data[r.pos+1] == 'u' {
					if lo, err := strconv.ParseUint(string(r.data[r.pos+2:r.pos+6]), 16, 32); err == nil {
						if pair := utf16.DecodeRune(ru, rune(lo)); pair != utf8.RuneError {
							r.pos += 6
							ru = pair
						}
					}
				}
				return utf8.AppendRune(buf, ru), nil
			}
		}
		return nil, r.errorf(start, "expected four hex digits after \\u, found %q", clip(r.data[r.pos:min(r.pos+4, len(r.data))]))
	}
	r.pos--
	return nil, r.errorf(start, `expected one of \" \\ \n \t \r \b \f \uXXXX after '\', found %s`, r.found())
}

// readNumber reads an integer (optionally with an N suffix, or in hex as in
// #object[... 0x1b6d3586 ...]) or a float (optionally with an M suffix).
// Ratios, radix and octal forms are refused.
func (r *ednReader) readNumber() (any, *ParseError) {
	start := r.pos
	text, kind, err := r.scanNumber()
	if err != nil {
		return nil, err
	}
	v, msg := parseNumber(text, kind)
	if msg != "" {
		return nil, r.errorf(start, "%s", msg)
	}
	return v, nil
}

// scanNumber moves past a number token and returns its text without suffix.
func (r *ednReader) scanNumber() (text []byte, kind numKind, err *ParseError) {
	start := r.pos
	tok := r.token()
	text, suffix := tok, byte(0)
	if n := len(tok); tok[n-1] == 'N' || tok[n-1] == 'M' {
		text, suffix = tok[:n-1], tok[n-1]
	}
	kind, ok := numberShape(text)
	switch {
	case suffix == 'N': // a BigInt: fine if it fits 64 bits
		ok = ok && kind != numFloat
	case suffix == 'M': // a BigDecimal: read as a float, even when written without a point
		ok = ok && kind != numHex
		kind = numFloat
	}
	if !ok {
		msg := "expected a number such as 42, -7, 1.5 or 2e10, found %q"
		if bytes.IndexByte(tok, '/') >= 0 {
			msg = "ratios such as %q are not supported"
		}
		return nil, 0, r.errorf(start, msg, clip(tok))
	}
	return text, kind, nil
}

// numberShape classifies number text: a decimal integer without leading zeros
// (which Clojure would read as octal), a hex integer, or a float (an integer
// part, then a fraction, an exponent or both).
func numberShape(s []byte) (kind numKind, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if len(s) > i+2 && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		for _, c := range s[i+2:] {
			if !isDigit(c) && !('a' <= c|0x20 && c|0x20 <= 'f') {
				return 0, false
			}
		}
		return numHex, true
	}
	digits := func() int {
		from := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i - from
	}
	intStart := i
	nInt := digits()
	if nInt == 0 {
		return 0, false
	}
	if i == len(s) {
		return numInt, nInt == 1 || s[intStart] != '0'
	}
	if s[i] == '.' {
		i++
		digits()
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, false
		}
	}
	return numFloat, i == len(s)
}
