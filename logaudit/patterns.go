// Package logaudit reads what a system under test logged for red flag #7
// ("no swallowed errors"): the patterns that fail a run (alarms), the ones a
// suite declares expected, the defaults every ecosystem gets, and the scan
// of the saved log files into verdict.LogScan.
//
// The default alarms follow one rule: they name what only a bug writes (a
// runtime's crash report, a sanitizer's, an uncaught exception, a JVM
// exception class that is a programming error, a FATAL/SEVERE/PANIC level),
// never what a fault makes a correct system write. A JVM under partitions and
// kills logs connection-loss exceptions (java.net.ConnectException,
// KeeperException$ConnectionLossException, java.io.EOFException) by the
// hundred, often at ERROR level; those are checked I/O exceptions and match no
// default, while java.lang.NullPointerException does, at any level. A suite
// that wants a stricter audit adds alarms (ERROR, Exception) and declares the
// lines it expects; an expected pattern excuses a line even when an alarm
// matches it.
package logaudit

import (
	"bytes"
	"fmt"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
)

// Default is one default alarm: its pattern and the ecosystem it is for.
type Default struct {
	Pattern   string
	Ecosystem string
}

// Defaults are the alarms every audit uses unless the suite turns them off,
// most specific first: the first alarm a line matches is the one reported.
var Defaults = []Default{
	{`\bpanic: `, "Go"},
	{`\bfatal error: `, "Go"},
	{`WARNING: DATA RACE`, "Go"},
	{`panicked at`, "Rust"},
	{`Exception in thread "`, "JVM"},
	{`java\.lang\.(?:NullPointer|IllegalState|IllegalArgument|IllegalMonitorState|(?:Array|String)?IndexOutOfBounds|ClassCast|Arithmetic|NegativeArraySize|UnsupportedOperation)Exception`, "JVM"},
	{`java\.util\.ConcurrentModificationException`, "JVM"},
	{`java\.lang\.\w*Error\b`, "JVM"},
	{`A fatal error has been detected by the Java Runtime`, "JVM"},
	{`\bSEVERE\b`, "JVM"},
	{`\bFATAL\b`, "any"},
	{`\bPANIC\b`, "any"},
	{`(?:ERROR|WARNING): \w+Sanitizer`, "C/C++"},
	{`runtime error: `, "C/C++"},
	{`: Assertion .+ failed`, "C/C++"},
	{`terminate called after throwing`, "C/C++"},
	{`Traceback \(most recent call last\)`, "Python"},
	{`CRASH REPORT`, "Erlang"},
	{`"level":\s*"(?:fatal|panic|dpanic)"`, "structured"},
	{`\blevel=(?:fatal|panic)\b`, "structured"},
}

// Pattern is one compiled log pattern.
type Pattern struct {
	// Text is the pattern as declared (Go regexp syntax, RE2).
	Text string
	// Origin says where it comes from: "default (Go)", "declared".
	Origin string
	re     *regexp.Regexp
	// needles are literals every match contains, longest first, so most
	// lines are rejected by substring searches without running the
	// regexp; none when none is known. plain: the pattern is exactly its
	// one needle.
	needles [][]byte
	plain   bool
}

// Match reports whether line matches p.
func (p *Pattern) Match(line []byte) bool {
	for _, n := range p.needles {
		if !bytes.Contains(line, n) {
			return false
		}
	}
	return p.plain || p.re.Match(line)
}

// matchRest is Match once the first needle is known to occur.
func (p *Pattern) matchRest(line []byte) bool {
	for _, n := range p.needles[1:] {
		if !bytes.Contains(line, n) {
			return false
		}
	}
	return p.plain || p.re.Match(line)
}

// compile compiles text, naming it in the error.
func compile(text, origin string) (Pattern, error) {
	if text == "" {
		return Pattern{}, fmt.Errorf("empty log pattern (it would match every line)")
	}
	re, err := regexp.Compile(text)
	if err != nil {
		return Pattern{}, fmt.Errorf("log pattern %q: %w", text, err)
	}
	p := Pattern{Text: text, Origin: origin, re: re}
	if parsed, err := syntax.Parse(text, syntax.Perl); err == nil {
		parsed = parsed.Simplify()
		lits := appendNew(nil, required(parsed)...)
		sort.SliceStable(lits, func(i, j int) bool { return len(lits[i]) > len(lits[j]) })
		for _, l := range lits {
			p.needles = append(p.needles, []byte(l))
		}
		p.plain = len(lits) == 1 && parsed.Op == syntax.OpLiteral && parsed.Flags&syntax.FoldCase == 0
	}
	if p.re.MatchString("") {
		return Pattern{}, fmt.Errorf("log pattern %q matches the empty string, so every line", text)
	}
	return p, nil
}

// required lists literals every match of re contains (none when none is
// known): a literal's own, a concatenation's parts', a repetition's of at
// least one. Case-folded literals give none (a byte search would miss a
// case).
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []string
		for _, s := range re.Sub {
			out = append(out, required(s)...)
		}
		return out
	}
	return nil
}

// Spec is what a suite declares about its system's logs: where they are,
// what in them fails a run and what is expected, or why there are none.
type Spec struct {
	// Paths are log files on every node, fetched into the run's
	// logs/<node>/ before teardown; relative paths resolve in the node's
	// directory (a --local node's, or the login directory over SSH).
	Paths []string
	// Local are log files on the machine faultline runs on, read in place
	// (a system faultline does not run on nodes).
	Local []string
	// Alarms are patterns that fail the run, besides the defaults unless
	// NoDefaults.
	Alarms     []string
	NoDefaults bool
	// Expected are patterns of lines that never fail the run, even when an
	// alarm matches them.
	Expected []string
	// None is the suite's reason that its system has no logs faultline can
	// reach; the audit is then n/a, with the reason shown.
	None string
}

// Declared reports whether the suite said anything about where its logs
// are (or that there are none).
func (s Spec) Declared() bool { return len(s.Paths)+len(s.Local) > 0 || s.None != "" }

// Merge adds o's declarations to s's: paths and patterns add up; a reason
// for no logs stands only where no paths are declared, which Check says.
func (s Spec) Merge(o Spec) Spec {
	s.Paths = appendNew(s.Paths, o.Paths...)
	s.Local = appendNew(s.Local, o.Local...)
	s.Alarms = appendNew(s.Alarms, o.Alarms...)
	s.Expected = appendNew(s.Expected, o.Expected...)
	s.NoDefaults = s.NoDefaults || o.NoDefaults
	if s.None == "" {
		s.None = o.None
	}
	return s
}

// Check reports a contradictory or unusable declaration.
func (s Spec) Check() error {
	if strings.TrimSpace(s.None) == "" && s.None != "" {
		return fmt.Errorf("logs: none needs a reason a reader can act on, not blank text")
	}
	if s.None != "" && len(s.Paths)+len(s.Local) > 0 {
		return fmt.Errorf("logs: none = %q says the system has no logs faultline can reach, but log paths are declared too (%s)",
			s.None, strings.Join(append(append([]string{}, s.Paths...), s.Local...), ", "))
	}
	if s.NoDefaults && len(s.Alarms) == 0 {
		return fmt.Errorf("logs: the default alarms are off and no alarm is declared, so no line could ever fail the audit")
	}
	_, err := s.Compile()
	return err
}

// Set is a Spec's compiled patterns.
type Set struct {
	Alarms   []Pattern
	Expected []Pattern
	// Declared counts the alarms the suite added to the defaults.
	Declared int
	// anchors finds, in one pass over a line, which of the first 64 alarms
	// can match: anchors[c] has bit i when alarm i's longest needle holds
	// byte c at offset anchorAt[i], the needle's rarest byte. An alarm
	// without needles (or past the 64th) is always tried.
	anchors  [256]uint64
	anchorAt []int
	indexed  uint64
}

// index builds the anchor table of s.Alarms.
func (s *Set) index() {
	s.anchorAt = make([]int, len(s.Alarms))
	for i := range s.Alarms {
		p := &s.Alarms[i]
		if i >= 64 || len(p.needles) == 0 {
			continue
		}
		n := p.needles[0]
		at := 0
		for j := range n {
			if commonness(n[j]) < commonness(n[at]) {
				at = j
			}
		}
		s.anchorAt[i] = at
		s.anchors[n[at]] |= 1 << i
		s.indexed |= 1 << i
	}
}

// commonness ranks how often a byte appears in log text: a rough order of
// English letter frequency, digits and the punctuation logs are made of
// above the rest, so an anchor falls on a rare byte and the one pass over a
// line seldom stops.
func commonness(c byte) int {
	const common = " etaoinsrhldcu0123456789:.-=/_,[]mfpgwybvk\"\tTEIASRNOLxjqzCDMPU()"
	if i := strings.IndexByte(common, c); i >= 0 {
		return len(common) - i
	}
	return 0
}

// candidates is the set of indexed alarms whose anchor needle occurs in
// line, found in one pass.
func (s *Set) candidates(line []byte) uint64 {
	var found uint64
	for i, c := range line {
		m := s.anchors[c] &^ found
		if m == 0 {
			continue
		}
		for m != 0 {
			k := bits.TrailingZeros64(m)
			m &^= 1 << k
			n, at := s.Alarms[k].needles[0], s.anchorAt[k]
			if i >= at && len(line)-(i-at) >= len(n) && bytes.Equal(line[i-at:i-at+len(n)], n) {
				found |= 1 << k
			}
		}
	}
	return found
}

// Compile compiles the spec's alarms (the defaults first unless turned
// off) and expected patterns.
func (s Spec) Compile() (*Set, error) {
	set := &Set{Declared: len(s.Alarms)}
	if !s.NoDefaults {
		for _, d := range Defaults {
			p, err := compile(d.Pattern, "default ("+d.Ecosystem+")")
			if err != nil {
				return nil, fmt.Errorf("default alarm: %w", err)
			}
			set.Alarms = append(set.Alarms, p)
		}
	}
	for _, a := range s.Alarms {
		p, err := compile(a, "declared")
		if err != nil {
			return nil, fmt.Errorf("alarm: %w", err)
		}
		set.Alarms = append(set.Alarms, p)
	}
	for _, e := range s.Expected {
		p, err := compile(e, "expected")
		if err != nil {
			return nil, fmt.Errorf("expected: %w", err)
		}
		set.Expected = append(set.Expected, p)
	}
	set.index()
	return set, nil
}

// Match returns the first alarm line matches (nil: none), and whether an
// expected pattern excuses it. Expected patterns are tried only on a line an
// alarm matched, so a clean line costs only the alarms' substring searches.
func (s *Set) Match(line []byte) (alarm *Pattern, excused *Pattern) {
	found := s.candidates(line)
	for i := range s.Alarms {
		p := &s.Alarms[i]
		if i < 64 && s.indexed&(1<<i) != 0 {
			if found&(1<<i) == 0 || !p.matchRest(line) {
				continue
			}
		} else if !p.Match(line) {
			continue
		}
		alarm = p
		break
	}
	if alarm == nil {
		return nil, nil
	}
	for i := range s.Expected {
		if s.Expected[i].Match(line) {
			return alarm, &s.Expected[i]
		}
	}
	return alarm, nil
}

// Summary names the alarms for a finding: "20 default alarms (Go, JVM,
// ...) and 1 declared", or the declared ones alone.
func (s *Set) Summary() string {
	defaults := len(s.Alarms) - s.Declared
	var parts []string
	if defaults > 0 {
		parts = append(parts, fmt.Sprintf("%d default alarms (Go, Rust, JVM, C/C++ sanitizers, Python, FATAL/SEVERE/PANIC levels)", defaults))
	}
	if s.Declared > 0 {
		var texts []string
		for _, p := range s.Alarms[defaults:] {
			texts = append(texts, "`"+p.Text+"`")
		}
		parts = append(parts, fmt.Sprintf("%d declared (%s)", s.Declared, strings.Join(texts, ", ")))
	}
	return strings.Join(parts, " and ")
}

func appendNew(xs []string, ys ...string) []string {
	for _, y := range ys {
		found := false
		for _, x := range xs {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			xs = append(xs, y)
		}
	}
	return xs
}
