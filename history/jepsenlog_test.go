package history

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJepsenLogLines(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Op // Index and Time are 0: each line is read alone
	}{
		{"tabs", "INFO  jepsen.util - 2\t:invoke\t:cas\t[3 0]",
			Op{Process: 2, Type: Invoke, F: "cas", Value: []any{int64(3), int64(0)}}},
		{"runs of spaces", "INFO  jepsen.util - 2   :fail   :cas    [3 0]",
			Op{Process: 2, Type: Fail, F: "cas", Value: []any{int64(3), int64(0)}}},
		{"keyword value", "INFO  jepsen.util - 4\t:info\t:write\t:timed-out",
			Op{Process: 4, Type: Info, F: "write", Value: Keyword("timed-out")}},
		{"nil value", "INFO  jepsen.util - 0\t:invoke\t:read\tnil",
			Op{Process: 0, Type: Invoke, F: "read"}},
		{"nemesis", "INFO  jepsen.util - :nemesis\t:info\t:start\t{\"n1\" #{\"n2\"}}",
			Op{Process: NemesisProcess, Type: Info, F: "start", Value: map[string]any{"n1": Set{"n2"}}}},
		{"value with spaces", "INFO  jepsen.util - 1\t:ok\t:txn\t[[:append 5 1] [:r 5 [1 2]]]",
			Op{Process: 1, Type: OK, F: "txn", Value: []any{
				[]any{Keyword("append"), int64(5), int64(1)}, []any{Keyword("r"), int64(5), []any{int64(1), int64(2)}}}}},
		{"EDN error", "INFO  jepsen.util - 3\t:fail\t:read\tnil\t:not-found",
			Op{Process: 3, Type: Fail, F: "read", Error: Keyword("not-found")}},
		{"EDN vector error", "INFO  jepsen.util - 3\t:fail\t:read\tnil\t[:conflict \"write skew\"]",
			Op{Process: 3, Type: Fail, F: "read", Error: []any{Keyword("conflict"), "write skew"}}},
		{"raw text error", "INFO  jepsen.util - 3\t:info\t:write\t5\tindeterminate: Connection refused  ",
			Op{Process: 3, Type: Info, F: "write", Value: int64(5), Error: "indeterminate: Connection refused"}},
		{"raw error that looks like a comment", "INFO  jepsen.util - 3\t:info\t:write\t5\t; oops",
			Op{Process: 3, Type: Info, F: "write", Value: int64(5), Error: "; oops"}},
		{"unilog", "INFO [2017-03-15 23:19:02,301] jepsen worker 0 - jepsen.util 0\t:invoke\t:read\tnil",
			Op{Process: 0, Type: Invoke, F: "read"}},
		{"string f", "INFO  jepsen.util - 7\t:invoke\t\"read\"\tnil",
			Op{Process: 7, Type: Invoke, F: "read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := Read(strings.NewReader(tt.line), "j.log", JepsenLog)
			if err != nil {
				t.Fatal(err)
			}
			assertSameOps(t, file.Ops, []Op{tt.want})
		})
	}
}

func TestJepsenLogErrors(t *testing.T) {
	const prefix = "INFO  jepsen.util - " // op text starts at column 21
	tests := []struct {
		name      string
		in        string
		line, col int
		msg       string
	}{
		{"symbol process", prefix + "x :invoke :read nil", 1, 21,
			`:process: expected a process number, :nemesis or nil, found the string "x"`},
		{"missing f", prefix + "2 :invoke", 1, 30, `expected the op's function, such as :read, found end of line`},
		{"missing value", prefix + "2 :invoke :read \t", 1, 38, `expected the op's value, found end of line`},
		{"empty op text", prefix, 1, 21, `expected a process number, :nemesis or nil, found end of line`},
		{"unknown type", prefix + "2 :running :read nil", 1, 23, `:type: expected one of invoke, ok, fail or info, found the keyword :running`},
		{"unclosed value", prefix + "2 :invoke :read [1 2", 1, 41, `expected ']' to close the vector opened at 1:37, found end of line`},
		{"later line", "INFO  jepsen.core - starting\n" + prefix + "1 :ok :read 1\n" + prefix + "1 :ok :read {:a}\n", 3, 36,
			`expected a value for map key "a", found '}'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in), "j.log", JepsenLog)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if pe.Line != tt.line || pe.Col != tt.col || pe.Msg != tt.msg {
				t.Errorf("got %s\nwant j.log:%d:%d: %s", pe, tt.line, tt.col, tt.msg)
			}
		})
	}
}

func TestJepsenLogSkipsOtherLines(t *testing.T) {
	in := "INFO  jepsen.core - Running test\n\nWARN  jepsen.control - retrying\n\tat java.lang.Thread.run(Thread.java:748)\n"
	file, err := Read(strings.NewReader(in), "j.log", JepsenLog)
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Ops) != 0 {
		t.Errorf("got %d ops from lines that hold none", len(file.Ops))
	}
}

func FuzzJepsenLog(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.log"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no log seeds in testdata/ (%v)", err)
	}
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("INFO  jepsen.util - :nemesis\t:info\t:kill\t#{\"n1\"}\t\"err\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), "fuzz", JepsenLog)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		// As FuzzEDN: a keyword the log spells but EDN cannot (":0") goes out as
		// its text, the way every EDN export writes it.
		assertRoundTrips(t, JepsenOps(file.Ops), false)
	})
}
