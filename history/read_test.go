package history

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr bool
	}{
		{"auto", Auto, false},
		{"edn", EDN, false},
		{"jepsen-log", JepsenLog, false},
		{"jsonl", JSONL, false},
		{"", "", true},
		{"JSONL", "", true},
		{"json", "", true},
	}
	for _, tt := range tests {
		got, err := ParseFormat(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), "auto, edn, jepsen-log or jsonl") {
			t.Errorf("error %q does not list the formats", err)
		}
	}
}

func TestSniff(t *testing.T) {
	const jsonLine = `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","value":null}`
	tests := []struct {
		name  string
		in    string
		want  Format
		ops   int
		errAt string // "line:col" of the expected ParseError
	}{
		{"empty", "", Auto, 0, ""},
		{"blank and comments", "\n  \n; a comment\n\t\n", Auto, 0, ""},
		{"JSONL", jsonLine + "\n", JSONL, 1, ""},
		{"JSONL with a BOM", "\xef\xbb\xbf" + jsonLine, JSONL, 1, ""},
		{"JSONL with space", `{ "process":0,"type":"ok"}`, JSONL, 1, ""},
		{"EDN map", "{:process 0, :type :ok}", EDN, 1, ""},
		{"EDN after comments", "; history\n\n  [{:process 0, :type :ok}]", EDN, 1, ""},
		{"EDN list", "({:process 0, :type :ok})", EDN, 1, ""},
		{"EDN record", "#jepsen.history.Op{:process 0, :type :ok}", EDN, 1, ""},
		{"log4j log", "INFO  jepsen.util - 0\t:invoke\t:read\tnil", JepsenLog, 1, ""},
		{"log without ops", "INFO  jepsen.core - Running test", JepsenLog, 0, ""},
		{"log starting with a timestamp", "2017-03-15 23:19:02 boot\n2017-03-15 23:19:03 INFO [x] jepsen worker 0 - jepsen.util 0\t:invoke\t:read\tnil",
			JepsenLog, 1, ""},
		{"unknown", "hello\nworld", "", 0, "1:1"},
		{"unknown after blanks", "\n   hello", "", 0, "2:4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := Read(strings.NewReader(tt.in), "h", Auto)
			if tt.errAt != "" {
				var pe *ParseError
				if !errors.As(err, &pe) || !strings.HasPrefix(pe.Error(), "h:"+tt.errAt+": cannot detect the history format") {
					t.Fatalf("error = %v, want a format error at h:%s", err, tt.errAt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if file.Format != tt.want || len(file.Ops) != tt.ops {
				t.Errorf("got %s with %d ops, want %s with %d", file.Format, len(file.Ops), tt.want, tt.ops)
			}
		})
	}
}

// TestReadEmpty: an empty file (like a run that recorded nothing) is zero ops
// in every format, not an error.
func TestReadEmpty(t *testing.T) {
	for _, f := range []Format{Auto, EDN, JepsenLog, JSONL} {
		file, err := Read(strings.NewReader(""), "empty", f)
		if err != nil || len(file.Ops) != 0 || file.TruncatedTail {
			t.Errorf("%s: got %+v, %v; want no ops and no error", f, file, err)
		}
	}
}

func TestReadFailures(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"process\":0,\"type\":\"ok\"}\n{oops}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad, Auto); err == nil || !strings.HasPrefix(err.Error(), bad+":2:2: ") {
		t.Errorf("bad file: error = %v, want it to start with %s:2:2", err, bad)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), Auto); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: error = %v, want fs.ErrNotExist", err)
	}
	if _, err := Read(iotest.ErrReader(errors.New("boom")), "r", Auto); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("failing reader: error = %v, want it to carry the read error", err)
	}
	if _, err := Read(strings.NewReader("{}"), "r", Format("xml")); err == nil || !strings.Contains(err.Error(), `unknown format "xml"`) {
		t.Errorf("unknown format: error = %v", err)
	}
}

func TestParseErrorString(t *testing.T) {
	e := &ParseError{File: "h.edn", Line: 3, Col: 7, Msg: "expected x, found y"}
	if got := e.Error(); got != "h.edn:3:7: expected x, found y" {
		t.Errorf("Error() = %q", got)
	}
	e.File = ""
	if got := e.Error(); got != "3:7: expected x, found y" {
		t.Errorf("Error() without a file = %q", got)
	}
}
