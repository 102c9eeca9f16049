package logaudit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/faultline/faultline/verdict"
)

// File is one declared log as the run saved it.
type File struct {
	// Name is how findings name it: "n1/app/app.log", or a local path.
	Name string
	// Path is the saved copy to read; "" when it could not be saved, and
	// Err says why.
	Path string
	Err  string
}

// maxQuote bounds a quoted line, so one huge line does not swamp a finding.
const maxQuote = 240

// Scan is one audit in progress: lines go in, a verdict.LogScan comes out.
type Scan struct {
	set  *Set
	scan verdict.LogScan
}

// NewScan starts an audit with the set's patterns.
func (s *Set) NewScan() *Scan {
	return &Scan{set: s, scan: verdict.LogScan{Scanned: true, Alarms: s.Summary()}}
}

// Line audits one line; where names it ("n1/app.log:12").
func (a *Scan) Line(where string, line []byte) {
	a.scan.Lines++
	alarm, excused := a.set.Match(line)
	switch {
	case alarm == nil:
	case excused != nil:
		a.scan.Excused++
		if a.scan.ExcusedSample == "" {
			a.scan.ExcusedSample = fmt.Sprintf("%s: %s [alarm `%s`, expected `%s`]", where, quote(line), alarm.Text, excused.Text)
		}
	default:
		a.scan.Matches++
		if a.scan.ByAlarm == nil {
			a.scan.ByAlarm = map[string]int{}
		}
		a.scan.ByAlarm[alarm.Text]++
		if len(a.scan.Samples) < verdict.MaxLogSamples {
			a.scan.Samples = append(a.scan.Samples, fmt.Sprintf("%s: %s [alarm `%s`, %s]", where, quote(line), alarm.Text, alarm.Origin))
		}
	}
}

// Unread records a declared log that was not read, and why.
func (a *Scan) Unread(name, why string) {
	a.scan.Unread = append(a.scan.Unread, name+": "+why)
}

// File reads one declared log. A log that could not be saved, cannot be
// opened or read, or has no line is recorded as unread: it proves nothing.
func (a *Scan) File(f File) {
	if f.Path == "" {
		a.Unread(f.Name, orDefault(f.Err, "not saved"))
		return
	}
	fh, err := os.Open(f.Path)
	if err != nil {
		a.Unread(f.Name, unreadable(err))
		return
	}
	defer fh.Close()
	before := a.scan.Lines
	if err := a.lines(f.Name, fh); err != nil {
		a.Unread(f.Name, fmt.Sprintf("read stopped after %d lines: %v", a.scan.Lines-before, err))
		return
	}
	if a.scan.Lines == before {
		a.Unread(f.Name, "empty (the system wrote nothing there: a log with no line proves nothing)")
		return
	}
	a.scan.Files++
}

// lines feeds r's lines to Line. A line longer than the buffer is audited
// in buffer-sized pieces under one line number.
func (a *Scan) lines(name string, r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<20)
	n := 1
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			line := chunk
			if err == nil {
				line = trimEOL(line)
			}
			a.Line(fmt.Sprintf("%s:%d", name, n), line)
			if err == bufio.ErrBufferFull {
				a.scan.Lines-- // the same line goes on
				continue
			}
			n++
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return nil
		case err == bufio.ErrBufferFull:
		default:
			return err
		}
	}
}

// Result is the audit's evidence.
func (a *Scan) Result() verdict.LogScan { return a.scan }

// Files audits the declared logs with the spec's patterns. A spec that
// declares there are none gives a scan that says so, and reads nothing.
func Files(spec Spec, files []File) (verdict.LogScan, error) {
	if spec.None != "" {
		return verdict.LogScan{None: spec.None}, nil
	}
	set, err := spec.Compile()
	if err != nil {
		return verdict.LogScan{}, err
	}
	a := set.NewScan()
	for _, f := range files {
		a.File(f)
	}
	return a.Result(), nil
}

func trimEOL(b []byte) []byte {
	b = b[:len(b)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// quote is line as a finding shows it: valid UTF-8, cut at maxQuote bytes.
func quote(line []byte) string {
	cut := false
	if len(line) > maxQuote {
		line, cut = line[:maxQuote], true
	}
	s := string(line)
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // invalid bytes become U+FFFD
	}
	if cut {
		s += "…"
	}
	return s
}

func unreadable(err error) string {
	if errors.Is(err, os.ErrNotExist) {
		return "missing"
	}
	return "unreadable: " + err.Error()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
