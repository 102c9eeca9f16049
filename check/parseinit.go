package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/faultline/faultline/history"
)

// maxInitDepth bounds nesting so hostile input cannot exhaust the stack.
const maxInitDepth = 64

// ParseInit parses the --init flag: a model's initial state written the way
// people type it on a command line. Accepted:
//
//	nil null true false 0 -5 1.5 "s" :kw [1 2] #{1 2}
//	{x:0,y:0}  {"x": 0}  {:x 0 :y 0}
//
// Commas are whitespace (as in EDN). Maps become map[string]any keyed by the key
// text, integers int64, keywords history.Keyword. A bare word such as abc is an
// error, so a typo cannot silently become a string.
func ParseInit(s string) (any, error) {
	p := initParser{s: s}
	p.skipSpace()
	if p.eof() {
		return nil, fmt.Errorf("init %q: empty (write nil for no initial value)", s)
	}
	v, err := p.value(0)
	if err == nil {
		p.skipSpace()
		if !p.eof() {
			err = p.errorf("unexpected %q after the value", p.s[p.i:])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("init %q: %w", s, err)
	}
	return v, nil
}

type initParser struct {
	s string
	i int
}

func (p *initParser) eof() bool { return p.i >= len(p.s) }

func (p *initParser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *initParser) skipSpace() {
	for !p.eof() && strings.IndexByte(" \t\r\n,", p.s[p.i]) >= 0 {
		p.i++
	}
}

// peekAt returns the byte at offset k from the cursor, or 0 past the end.
func (p *initParser) peekAt(k int) byte {
	if p.i+k < len(p.s) {
		return p.s[p.i+k]
	}
	return 0
}

func (p *initParser) value(depth int) (any, error) {
	if depth > maxInitDepth {
		return nil, p.errorf("nested deeper than %d levels", maxInitDepth)
	}
	p.skipSpace()
	if p.eof() {
		return nil, p.errorf("value expected, found the end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		return p.mapBody(depth)
	case c == '[':
		p.i++
		return p.seqBody(depth, ']')
	case c == '#' && p.peekAt(1) == '{':
		p.i += 2
		xs, err := p.seqBody(depth, '}')
		return history.Set(xs), err
	case c == '"':
		return p.str()
	case c == ':':
		name, err := p.keyword()
		return history.Keyword(name), err
	case isDigit(c) || (c == '-' || c == '+' || c == '.') && isDigit(p.peekAt(1)) || (c == '-' || c == '+') && p.peekAt(1) == '.':
		return p.number()
	case isKeywordStart(c):
		start := p.i
		switch w := p.word(); w {
		case "nil", "null":
			return nil, nil
		case "true":
			return true, nil
		case "false":
			return false, nil
		default:
			p.i = start
			return nil, p.errorf("bare word %q: quote a string (\"%s\") or write a keyword (:%s)", w, w, w)
		}
	default:
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *initParser) mapBody(depth int) (any, error) {
	m := map[string]any{}
	for {
		p.skipSpace()
		if p.eof() {
			return nil, p.errorf("map is not closed with '}'")
		}
		if p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		key, err := p.mapKey()
		if err != nil {
			return nil, err
		}
		if _, dup := m[key]; dup {
			return nil, p.errorf("duplicate map key %q", key)
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, fmt.Errorf("map key %q: %w", key, err)
		}
		m[key] = v
	}
}

// mapKey reads :k (EDN, no separator), "k" (optional ':' separator, JSON) or
// k (bare name, ':' required, as in {x:0}).
func (p *initParser) mapKey() (string, error) {
	switch c := p.s[p.i]; {
	case c == ':':
		return p.keyword()
	case c == '"':
		k, err := p.str()
		if err != nil {
			return "", err
		}
		p.skipSpace()
		// A ':' followed by a keyword name starts a keyword value, not a
		// separator: {"k" :v} is EDN, and FormatEDN writes it so.
		if p.peekAt(0) == ':' && p.keywordAt(p.i+1) == "" {
			p.i++
		}
		return k, nil
	case isKeywordStart(c):
		k := p.word()
		p.skipSpace()
		if p.peekAt(0) != ':' {
			return "", p.errorf("':' expected after map key %s (write {%s:0} or {:%s 0})", k, k, k)
		}
		p.i++
		return k, nil
	default:
		return "", p.errorf("map key expected, found %q", c)
	}
}

func (p *initParser) seqBody(depth int, closer byte) ([]any, error) {
	xs := []any{}
	for {
		p.skipSpace()
		if p.eof() {
			return nil, p.errorf("missing closing %q", closer)
		}
		if p.s[p.i] == closer {
			p.i++
			return xs, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", len(xs), err)
		}
		xs = append(xs, v)
	}
}

func (p *initParser) str() (string, error) {
	start := p.i
	for p.i++; !p.eof(); p.i++ {
		switch p.s[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			s, err := strconv.Unquote(p.s[start:p.i])
			if err != nil {
				return "", fmt.Errorf("offset %d: bad string %s: %w", start, p.s[start:p.i], err)
			}
			return s, nil
		}
	}
	p.i = start
	return "", p.errorf("string is not closed with '\"'")
}

// keyword reads :name. The names accepted are exactly those FormatEDN writes
// as keywords (history.IsKeywordName), so every value it prints reads back:
// EDN allows more than a bare word does ($, %, &, ':' and '#' inside, a
// leading * or -, letters of any script), and a name such as a/b/c, which
// FormatEDN would write as a string, is refused rather than taken as a
// keyword that cannot be printed as one.
func (p *initParser) keyword() (string, error) {
	p.i++ // the ':'
	name := p.keywordAt(p.i)
	if name == "" {
		if tok := p.s[p.i:keywordEnd(p.s, p.i)]; tok != "" {
			return "", p.errorf("keyword name expected after ':', found %q (write a string: \"%s\")", tok, tok)
		}
		return "", p.errorf("keyword name expected after ':'")
	}
	p.i += len(name)
	return name, nil
}

// keywordAt returns the keyword name that starts at offset i, or "" when the
// token there is not one.
func (p *initParser) keywordAt(i int) string {
	if i > len(p.s) {
		return ""
	}
	tok := p.s[i:keywordEnd(p.s, i)]
	if !history.IsKeywordName(tok) {
		return ""
	}
	return tok
}

// keywordEnd returns where the keyword token starting at i ends: at a
// delimiter of this notation or of EDN, or at a control byte.
func keywordEnd(s string, i int) int {
	for i < len(s) && s[i] > ' ' && s[i] != 0x7f && strings.IndexByte(",[]{}\"();\\", s[i]) < 0 {
		i++
	}
	return i
}

func (p *initParser) word() string {
	start := p.i
	for !p.eof() && isKeywordChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *initParser) number() (any, error) {
	start := p.i
	for !p.eof() && strings.IndexByte(" \t\r\n,[]{}\":", p.s[p.i]) < 0 {
		p.i++
	}
	tok := p.s[start:p.i]
	if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		p.i = start
		return nil, p.errorf("bad number %q", tok)
	}
	return f, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isKeywordStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isKeywordChar(c byte) bool {
	return isKeywordStart(c) || c >= '0' && c <= '9' || strings.IndexByte("-.*+!?<>=/", c) >= 0
}
