package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"unicode/utf8"
)

// Format names a history file format.
type Format string

// The formats Read understands. Auto sniffs the content.
const (
	Auto      Format = "auto"
	EDN       Format = "edn"
	JepsenLog Format = "jepsen-log"
	JSONL     Format = "jsonl"
)

// ParseFormat turns a --format flag value into a Format.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Auto, EDN, JepsenLog, JSONL:
		return f, nil
	}
	return "", fmt.Errorf("unknown history format %q (want auto, edn, jepsen-log or jsonl)", s)
}

// File is a history read from a file.
type File struct {
	Ops []Op
	// Format is the format the ops were read in; with Auto it is the detected one,
	// and it stays Auto for an input with nothing in it (no ops to detect from).
	Format Format
	// TruncatedTail reports that the last line of a JSONL file was cut short (no
	// trailing newline, input ended mid-object) and was dropped: the journal of a
	// controller that was killed while writing.
	TruncatedTail bool
	// Lines holds the 1-based line each op starts on, in Ops' order.
	Lines []int
}

// LineOf returns the line of the op whose Index is index, 0 when no op
// has it.
func (f *File) LineOf(index int64) int {
	if index >= 0 && index < int64(len(f.Ops)) && f.Ops[index].Index == index && int(index) < len(f.Lines) {
		return f.Lines[index]
	}
	for i := range f.Ops {
		if f.Ops[i].Index == index && i < len(f.Lines) {
			return f.Lines[i]
		}
	}
	return 0
}

// lineCounter turns increasing byte offsets into 1-based line numbers in
// one pass over data.
type lineCounter struct {
	data   []byte
	off, n int // n: newlines before off
}

func (c *lineCounter) line(off int) int {
	c.n += bytes.Count(c.data[c.off:off], []byte{'\n'})
	c.off = off
	return c.n + 1
}

// ParseError says where and why an input is malformed. Line and Col are 1-based;
// Col counts characters, not bytes.
type ParseError struct {
	File      string
	Line, Col int
	Msg       string
}

// Error returns "file:line:col: msg", leaving out the file when it is unknown.
func (e *ParseError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// errorAt builds a ParseError for byte offset off of data.
func errorAt(data []byte, off int, format string, args ...any) *ParseError {
	off = min(max(off, 0), len(data))
	lineStart := bytes.LastIndexByte(data[:off], '\n') + 1
	return &ParseError{
		Line: bytes.Count(data[:lineStart], []byte{'\n'}) + 1,
		Col:  utf8.RuneCount(data[lineStart:off]) + 1,
		Msg:  fmt.Sprintf(format, args...),
	}
}

// ReadFile reads the history at path in format f (Auto to detect it).
//
// The file is mapped rather than copied into the heap where the system
// allows (see mapFile). Should it shrink while it is read, the access past
// its new end faults; that fault is an error here, not a crash.
func ReadFile(path string, f Format) (out *File, err error) {
	load := mapFile
	if !mapFiles {
		load = readWhole
	}
	data, unmap, err := load(path)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer unmap()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			if !isFault(e) {
				panic(e)
			}
			out, err = nil, fmt.Errorf("read history %s: the file changed while it was read: %v", path, e)
		}
	}()
	return parse(data, path, f)
}

// mapFiles says whether ReadFile maps files; benchmarks turn it off to
// measure the copy it saves.
var mapFiles = true

// mapped is called with the mapping once mapFile mapped a file; a test
// truncates the file there to see the fault become an error.
var mapped = func([]byte) {}

// readWhole reads the file at path into memory; unmap does nothing.
func readWhole(path string) ([]byte, func(), error) {
	data, err := os.ReadFile(path)
	return data, func() {}, err
}

// isFault reports whether a recovered panic is a memory fault turned into a
// panic by debug.SetPanicOnFault: a mapped file that shrank.
func isFault(e any) bool {
	_, ok := e.(interface{ Addr() uintptr })
	return ok
}

// Read reads a history from r in format f (Auto to detect it); name labels
// errors.
func Read(r io.Reader, name string, f Format) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read history %s: %w", name, err)
	}
	return parse(data, name, f)
}

var utf8BOM = []byte("\xef\xbb\xbf")

func parse(data []byte, name string, f Format) (*File, error) {
	defer pauseGC(len(data))() // see gcpause.go
	data = bytes.TrimPrefix(data, utf8BOM)
	if f == Auto {
		var err error
		if f, err = sniff(data); err != nil {
			err.(*ParseError).File = name
			return nil, err
		}
		if f == Auto {
			return &File{Format: Auto}, nil
		}
	}
	out := &File{Format: f}
	var err error
	switch f {
	case JSONL:
		out.Ops, out.Lines, out.TruncatedTail, err = readJSONL(data)
	case EDN:
		out.Ops, out.Lines, err = readEDN(data)
	case JepsenLog:
		out.Ops, out.Lines, err = readJepsenLog(data)
	default:
		return nil, fmt.Errorf("read history %s: unknown format %q", name, f)
	}
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = name
		}
		return nil, err
	}
	return out, nil
}

// sniff detects the format from the first line that is neither blank nor an EDN
// comment. It returns Auto when there is no such line.
func sniff(data []byte) (Format, error) {
	for off := 0; off < len(data); {
		line, next := nextLine(data, off)
		t := bytes.TrimLeft(line, " \t")
		switch {
		case len(bytes.TrimSpace(t)) == 0 || t[0] == ';':
			off = next
			continue
		case t[0] == '{':
			rest := bytes.TrimLeft(t[1:], " \t")
			if len(rest) > 0 && rest[0] == '"' {
				return JSONL, nil
			}
			return EDN, nil
		case t[0] == '[' || t[0] == '(' || t[0] == '#':
			return EDN, nil
		case bytes.HasPrefix(t, []byte("INFO")) || logMarkerEnd(line) >= 0:
			return JepsenLog, nil
		}
		// Log lines may start with a timestamp; any op line anywhere settles it.
		for o := next; o < len(data); {
			l, n := nextLine(data, o)
			if logMarkerEnd(l) >= 0 {
				return JepsenLog, nil
			}
			o = n
		}
		return "", errorAt(data, off+len(line)-len(t),
			"cannot detect the history format: expected a JSON object ({\"...), an EDN op map or vector ({:..., [, #jepsen...) or a Jepsen log line (INFO ... jepsen.util - ...), found %q",
			clip(t))
	}
	return Auto, nil
}

// nextLine returns the line starting at off, without its "\n" or "\r\n", and the
// offset of the line after it.
func nextLine(data []byte, off int) (line []byte, next int) {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		line, next = data[off:], len(data)
	} else {
		line, next = data[off:off+i], off+i+1
	}
	return bytes.TrimSuffix(line, []byte{'\r'}), next
}

// clip shortens b for quoting in an error message.
func clip(b []byte) string {
	const limit = 40
	if len(b) <= limit {
		return string(b)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "..."
}
