package history

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEDNValues(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`nil`, nil},
		{`true`, true},
		{`false`, false},
		{`42`, int64(42)},
		{`-7`, int64(-7)},
		{`+5`, int64(5)},
		{`0`, int64(0)},
		{`42N`, int64(42)},
		{`-9223372036854775808`, int64(-9223372036854775808)},
		{`1.5`, 1.5},
		{`1.`, 1.0},
		{`-1.5e-3`, -1.5e-3},
		{`1E3`, 1000.0},
		{`1.5M`, 1.5},
		{`2M`, 2.0},
		{`##Inf`, posInf()},
		{`##-Inf`, negInf()},
		{`##NaN`, nan()},
		{`"a\"b\\c\n\t\r\b\f\u00e9"`, "a\"b\\c\n\t\r\b\f\u00e9"},
		{`"\ud83d\ude00 and \ud800 alone"`, "\U0001F600 and \uFFFD alone"},
		{"\"multi\nline\"", "multi\nline"},
		{"\"bad \xff byte\"", "bad \uFFFD byte"},
		{`:foo`, Keyword("foo")},
		{`:jepsen.db/setup`, Keyword("jepsen.db/setup")},
		{`:a#b'c`, Keyword("a#b'c")},
		{`foo`, "foo"},
		{`java.net.Socket`, "java.net.Socket"},
		{`-`, "-"},
		{`\a`, "a"},
		{`\newline`, "\n"},
		{`\space`, " "},
		{`\tab`, "\t"},
		{`\u0041`, "A"},
		{`\o101`, "A"},
		{`\(`, "("},
		{`\é`, "é"},
		{`[\a \b]`, []any{"a", "b"}},
		{`[1 2 3]`, []any{int64(1), int64(2), int64(3)}},
		{`(1 "two")`, []any{int64(1), "two"}},
		{`[]`, []any{}},
		{`#{1 :x}`, Set{int64(1), Keyword("x")}},
		{`#{}`, Set{}},
		{`{:a 1, "b" 2, 3 4, sym 5}`, map[string]any{"a": int64(1), "b": int64(2), "3": int64(4), "sym": int64(5)}},
		{`{}`, map[string]any{}},
		{`#inst "2020-01-01T00:00:00Z"`, "2020-01-01T00:00:00Z"},
		{`#uuid "6b1f8d3e-0000-4000-8000-000000000000"`, "6b1f8d3e-0000-4000-8000-000000000000"},
		{`#jepsen.history.Op{:f :read}`, map[string]any{"f": Keyword("read")}},
		{`#object[java.lang.Object 0x1b6d3586 "x"]`, []any{"java.lang.Object", int64(0x1b6d3586), "x"}},
		{`[0xff -0X10 7N 0x10N]`, []any{int64(255), int64(-16), int64(7), int64(16)}},
		{`[1 #_ 2 3]`, []any{int64(1), int64(3)}},
		{`[#_ #_ 1 2 3]`, []any{int64(3)}},
		{`[#_[nested [discard]] 1]`, []any{int64(1)}},
		{"[1 ; comment ]\n 2]", []any{int64(1), int64(2)}},
		{`,,[1,2],,`, []any{int64(1), int64(2)}},
		{`[[:append 5 1] [:r 5 [1 2]]]`, []any{[]any{Keyword("append"), int64(5), int64(1)},
			[]any{Keyword("r"), int64(5), []any{int64(1), int64(2)}}}},
		{`[[:read :x 1] [:write :y 2]]`, []any{[]any{Keyword("read"), Keyword("x"), int64(1)},
			[]any{Keyword("write"), Keyword("y"), int64(2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r := ednReader{data: []byte(tt.in)}
			got, err := r.readValue()
			if err != nil {
				t.Fatal(err)
			}
			if err := r.skip(); err != nil || !r.eof() {
				t.Fatalf("stopped at offset %d of %q (%v)", r.pos, tt.in, err)
			}
			if !equalValues(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestEDNOps(t *testing.T) {
	read := Op{Index: 0, Time: 0, Process: 0, Type: Invoke, F: "read"}
	readOK := Op{Index: 1, Time: 1, Process: 0, Type: OK, F: "read", Value: int64(1)}
	tests := []struct {
		name string
		in   string
		want []Op
	}{
		{"empty", "", []Op{}},
		{"only comments", "; nothing\n\n;; here\n", []Op{}},
		{"top-level vector", "[{:process 0, :type :invoke, :f :read, :value nil}\n {:process 0, :type :ok, :f :read, :value 1}]",
			[]Op{read, readOK}},
		{"one map per line", "{:process 0, :type :invoke, :f :read, :value nil}\n{:process 0, :type :ok, :f :read, :value 1}\n",
			[]Op{read, readOK}},
		{"two vectors and a list", "[{:process 0 :type :invoke :f :read}] ({:process 0 :type :ok :f :read :value 1})",
			[]Op{read, readOK}},
		{"record literals", "#jepsen.history.Op{:process 0, :type :invoke, :f :read}\n#jepsen.history.Op {:process 0, :type :ok, :f :read, :value 1}",
			[]Op{read, readOK}},
		{"discarded op", "{:process 0, :type :invoke, :f :read}\n#_{:process 9, :type :ok}\n{:process 0, :type :ok, :f :read, :value 1}",
			[]Op{read, readOK}},
		{"explicit index and time kept", "{:index 7, :time 99, :process 0, :type :invoke, :f :read}",
			[]Op{{Index: 7, Time: 99, Process: 0, Type: Invoke, F: "read"}}},
		{"nemesis and extras", `{:process :nemesis, :type :info, :f :start, :value nil, :clock-offsets {"n1" 0.5}, :node "n1", :fault_epoch 3, "weird key" [1]}`,
			[]Op{{Process: NemesisProcess, Type: Info, F: "start", Node: "n1", FaultEpoch: 3,
				Extra: map[string]any{"clock-offsets": map[string]any{"n1": 0.5}, "weird key": []any{int64(1)}}}}},
		{"string keys and values", `{"process" 0, "type" "invoke", "f" "read", :key "k", :error "e"}`,
			[]Op{{Process: 0, Type: Invoke, F: "read", Key: "k", Error: "e"}}},
		{"f nil and node nil", `{:process 1, :type :fail, :f nil, :node nil, :fault_epoch nil}`,
			[]Op{{Process: 1, Type: Fail}}},
		{"no process, or nil, as in Elle's examples", "{:type :invoke, :value [[:r :x nil]]}\n{:process nil, :type :ok, :value [[:r :x [1]]]}",
			[]Op{{Index: 0, Time: 0, Process: NoProcess, Type: Invoke, Value: []any{[]any{Keyword("r"), Keyword("x"), nil}}},
				{Index: 1, Time: 1, Process: NoProcess, Type: OK, Value: []any{[]any{Keyword("r"), Keyword("x"), []any{int64(1)}}}}}},
		{"big N index", `{:index 12N, :time 5, :process 1, :type :ok}`,
			[]Op{{Index: 12, Time: 5, Process: 1, Type: OK}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := Read(strings.NewReader(tt.in), "in.edn", EDN)
			if err != nil {
				t.Fatal(err)
			}
			assertSameOps(t, file.Ops, tt.want)
		})
	}
}

func TestEDNErrors(t *testing.T) {
	const ok = `:process 0, :type :ok`
	tests := []struct {
		in        string
		line, col int
		msg       string
	}{
		{`{:process 0, :type :ok`, 1, 23, `expected '}' to close the op map opened at 1:1, found end of input`},
		{`{:process 0 :type :okk}`, 1, 19, `:type: expected one of invoke, ok, fail or info, found the keyword :okk`},
		{`{:process 0}`, 1, 1, `op has no :type`},
		{`{` + ok + `, :f}`, 1, 27, `expected a value for key :f, found '}'`},
		{`{:process 0, :process 1, :type :ok}`, 1, 14, `duplicate key :process in op map`},
		{`{:process :bob, :type :ok}`, 1, 11, `:process: expected a process number, :nemesis or nil, found the keyword :bob`},
		{`{:process -2147483648, :type :ok}`, 1, 11, `:process: expected a process number, :nemesis or nil, found the integer -2147483648`},
		{`{:process 99999999999999999999, :type :ok}`, 1, 11, `integer 99999999999999999999 is out of range for 64 bits`},
		{`{:process 0.5, :type :ok}`, 1, 11, `:process: expected a process number, :nemesis or nil, found the number 0.5`},
		{`{:index 1.5, ` + ok + `}`, 1, 9, `:index: expected an integer, found the number 1.5`},
		{`{:index "1", ` + ok + `}`, 1, 9, `:index: expected an integer, found the string "1"`},
		{`{:f [1], ` + ok + `}`, 1, 5, `:f: expected a string, a keyword or nothing, found a vector`},
		{`{:node 1, ` + ok + `}`, 1, 8, `:node: expected a string, a keyword or nothing, found the integer 1`},
		{`{"process" 0, :type :ok, 1 2}`, 1, 26, `expected a keyword as op map key, found the integer 1`},
		{`[{` + ok + `} 42]`, 1, 26, `expected an op map {:type ..., :process ...} or a vector of them, found '4'`},
		{`:process`, 1, 1, `expected an op map {:type ..., :process ...} or a vector of them, found ':'`},
		{`[{` + ok + `}`, 1, 25, `expected ']' to close the vector opened at 1:1, found end of input`},
		{`{` + ok + `, :value [1 2}`, 1, 36, `expected ']' to close the vector opened at 1:32, found '}'`},
		{`{` + ok + `, :value (1 2]}`, 1, 36, `expected ')' to close the list opened at 1:32, found ']'`},
		{`{` + ok + `, :value #{1 2]}`, 1, 37, `expected '}' to close the set opened at 1:32, found ']'`},
		{`{` + ok + `, :value 1/2}`, 1, 32, `ratios such as "1/2" are not supported`},
		{`{` + ok + `, :value 012}`, 1, 32, `expected a number such as 42, -7, 1.5 or 2e10, found "012"`},
		{`{` + ok + `, :value 0x1G}`, 1, 32, `expected a number such as 42, -7, 1.5 or 2e10, found "0x1G"`},
		{`{` + ok + `, :value 2r1010}`, 1, 32, `expected a number such as 42, -7, 1.5 or 2e10, found "2r1010"`},
		{`{` + ok + `, :value 0x1FM}`, 1, 32, `expected a number such as 42, -7, 1.5 or 2e10, found "0x1FM"`},
		{`{` + ok + `, :value 1.5N}`, 1, 32, `expected a number such as 42, -7, 1.5 or 2e10, found "1.5N"`},
		{`{` + ok + `, :value 1e}`, 1, 32, `expected a number such as 42, -7, 1.5 or 2e10, found "1e"`},
		{`{` + ok + `, :value 1e999}`, 1, 32, `number 1e999 is out of range for a 64-bit float`},
		{`{` + ok + `, :value 99999999999999999999}`, 1, 32, `integer 99999999999999999999 is out of range for 64 bits`},
		{`{` + ok + `, :value "abc}`, 1, 32, `expected '"' to close the string, found end of input`},
		{`{` + ok + `, :value "a\qb"}`, 1, 34, `expected one of \" \\ \n \t \r \b \f \uXXXX after '\', found 'q'`},
		{`{` + ok + `, :value "\u12"}`, 1, 33, `expected four hex digits after \u, found "12\"}"`},
		{`{` + ok + `, :value {[1] 2}}`, 1, 33, `map key a vector is not supported: keys must be keywords, strings or integers`},
		{`{` + ok + `, :value {:a 1 :a 2}}`, 1, 38, `duplicate map key "a"`},
		{`{` + ok + `, :value {:a}}`, 1, 35, `expected a value for map key "a", found '}'`},
		{`{` + ok + `, :value \foo}`, 1, 32, `expected a character such as \a, \newline or \u0041, found \foo`},
		{`{` + ok + `, :value \o777}`, 1, 32, `expected a character such as \a, \newline or \u0041, found \o777`},
		{`{` + ok + `, :value \ }`, 1, 32, `expected a character after '\', found ' '`},
		{`{` + ok + `, :value #"re"}`, 1, 32, `expected a set #{...}, a discard #_, ##Inf/##NaN or a tag like #inst after '#', found '"'`},
		{`{` + ok + `, :value ##Foo}`, 1, 32, `expected ##Inf, ##-Inf or ##NaN, found "##Foo"`},
		{`{` + ok + `, :value 'x}`, 1, 32, `expected a value, found '\''`},
		{`{` + ok + `, :value @x}`, 1, 32, `expected a value, found '@'`},
		{`{` + ok + `, :value :}`, 1, 32, `expected a keyword name after ':', found '}'`},
		{`{` + ok + `, :value #inst}`, 1, 37, `expected a value, found '}'`},
		{`{` + ok + `, :value #_}`, 1, 34, `expected a value, found '}'`},
		{"{" + ok + ", :value :k\xff}", 1, 32, `keyword "k\xff" is not valid UTF-8`},
		{"{:process 0, :type :ok}\n{:process 1,\n :type :nope}", 3, 8, `:type: expected one of invoke, ok, fail or info, found the keyword :nope`},
		{"{:f \"héé\", :process 0, :type :nope}", 1, 30, `:type: expected one of`}, // columns count characters, not bytes
		// The op map is the first level of nesting, so the 1000th bracket is one too many.
		{`{` + ok + `, :value ` + strings.Repeat("[", maxDepth+1), 1, 31 + maxDepth, `values nest deeper than 1000 levels`},
		{`{` + ok + `, :value ` + strings.Repeat("#_", maxDepth) + "1 2}", 1, 30 + 2*maxDepth, `values nest deeper than 1000 levels`},
		{`{` + ok + `, :value ` + strings.Repeat("#t ", maxDepth) + "1}", 1, 29 + 3*maxDepth, `values nest deeper than 1000 levels`},
	}
	for _, tt := range tests {
		t.Run(clip([]byte(tt.in)), func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in), "bad.edn", EDN)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if pe.File != "bad.edn" || pe.Line != tt.line || pe.Col != tt.col || !strings.HasPrefix(pe.Msg, tt.msg) {
				t.Errorf("got %s\nwant bad.edn:%d:%d: %s", pe, tt.line, tt.col, tt.msg)
			}
		})
	}
}

func TestEDNRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteEDN(&buf, fixtureOps()); err != nil {
		t.Fatal(err)
	}
	file, err := Read(&buf, "fixture.edn", Auto)
	if err != nil {
		t.Fatal(err)
	}
	if file.Format != EDN {
		t.Errorf("detected %s, want edn", file.Format)
	}
	assertSameOps(t, file.Ops, fixtureOps())
}

// TestNoProcessRoundTrip wants an op without a process written back as
// nil (EDN) and null (JSONL), and read again as the same.
func TestNoProcessRoundTrip(t *testing.T) {
	ops := []Op{{Index: 0, Time: 0, Process: NoProcess, Type: Invoke, F: "txn"}, {Index: 1, Time: 5, Process: NoProcess, Type: OK, F: "txn"}}
	for _, w := range []struct {
		write func(io.Writer, []Op) error
		want  string
	}{{WriteEDN, ":process nil"}, {WriteJSONL, `"process":null`}} {
		var buf bytes.Buffer
		if err := w.write(&buf, ops); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), w.want) {
			t.Errorf("written %q, want %s in it", buf.String(), w.want)
		}
		file, err := Read(&buf, "h", Auto)
		if err != nil {
			t.Fatal(err)
		}
		assertSameOps(t, file.Ops, ops)
	}
}

func TestWriteEDNRefuses(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	tests := []struct {
		name string
		op   Op
		want string
	}{
		{"unknown type", Op{Type: "done"}, `invalid op type "done"`},
		{"empty keyword", Op{Type: OK, Value: Keyword("")}, `keyword "" has no EDN spelling`},
		{"keyword with a space", Op{Type: OK, Value: []any{Keyword("a b")}}, `keyword "a b" has no EDN spelling`},
		{"value outside the model", Op{Type: OK, Value: uint8(1)}, "unsupported value type uint8"},
		{"extra names a core field", Op{Type: OK, Extra: map[string]any{"f": "x"}}, `an Op.Extra key names a core field: "f"`},
		{"value contains itself", Op{Type: OK, Value: cyclic}, "nests deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteEDN(&bytes.Buffer{}, []Op{{Type: OK}, tt.op})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "op 0") {
				t.Errorf("error = %v, want one naming op 0 and containing %q", err, tt.want)
			}
		})
	}
}

// failWriter fails every write, to check that writers report it.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWritersReportWriteErrors(t *testing.T) {
	for name, write := range map[string]func() error{
		"EDN":   func() error { return WriteEDN(failWriter{}, fixtureOps()) },
		"JSONL": func() error { return WriteJSONL(failWriter{}, fixtureOps()) },
	} {
		if err := write(); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: error = %v, want the write error", name, err)
		}
	}
}

func FuzzEDN(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.edn"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no EDN seeds in testdata/ (%v)", err)
	}
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{:process 0, :type :ok, :value [##NaN \a "\ud800" 1.5M 7N #{} #inst "x"]}`))
	f.Add([]byte(`[#jepsen.history.Op{:process :nemesis :type :info :f :kill} #_ x]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), "fuzz", EDN)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		// The reader takes keywords Clojure refuses (:1x); no writer can
		// spell those as keywords, so they round-trip as JepsenOps makes them.
		assertRoundTrips(t, JepsenOps(file.Ops), false)
	})
}

// BenchmarkReadEDN measures the EDN importer on porcupine's kv corpus shape.
func BenchmarkReadEDN(b *testing.B) {
	var buf bytes.Buffer
	for i := range 5000 {
		buf.WriteString(`{:process 12, :type :invoke, :f :append, :key "7", :value "x 12 ` + strings.Repeat("9", i%4) + ` y"}` + "\n")
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(buf.Bytes()), "bench.edn", EDN); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*5000), "ns/histop")
}
