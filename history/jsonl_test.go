package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contractOp is the op of the DESIGN.md history contract example.
func contractOp() Op {
	return Op{Index: 12, Time: 123456789, Process: 3, Type: OK, F: "cas", Key: "k1",
		Value: []any{int64(1), int64(2)}, Node: "n2", FaultEpoch: 4}
}

func TestAppendJSONContract(t *testing.T) {
	op := contractOp()
	got := string(AppendJSON([]byte("prefix:"), &op))
	want := `prefix:{"index":12,"time":123456789,"process":3,"type":"ok","f":"cas","key":"k1","value":[1,2],"node":"n2","fault_epoch":4}`
	if got != want {
		t.Errorf("AppendJSON:\n got %s\nwant %s", got, want)
	}
	// The contract's own spelling, with an explicit null error, reads as the same op.
	parsed, err := ParseJSONLine([]byte(`{"index":12,"time":123456789,"process":3,"type":"ok","f":"cas","key":"k1","value":[1,2],"error":null,"node":"n2","fault_epoch":4}`))
	if err != nil {
		t.Fatal(err)
	}
	assertSameOps(t, []Op{parsed}, []Op{op})
}

func TestAppendJSONValues(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"nil", nil, `null`},
		{"bools", []any{true, false}, `[true,false]`},
		{"ints", []any{int64(-9223372036854775808), 7}, `[-9223372036854775808,7]`},
		{"whole float keeps a point", 2.0, `2.0`},
		{"small float", 1e-7, `1e-07`},
		{"big float", 1e21, `1e+21`},
		{"plain float", -0.25, `-0.25`},
		{"non-finite floats", []any{posInf(), negInf(), nan()}, `["+Inf","-Inf","NaN"]`},
		{"keyword is a string", Keyword("timed-out"), `"timed-out"`},
		{"set is an array", Set{int64(1), "a"}, `[1,"a"]`},
		{"map keys sorted", map[string]any{"b": int64(1), "a": []any{}}, `{"a":[],"b":1}`},
		{"escapes", "q\"b\\n\nr\rt\tc\x01d\x7f", `"q\"b\\n\nr\rt\tc\u0001d\u007f"`},
		{"unicode kept", "é😀", `"é😀"`},
		{"invalid UTF-8 replaced", "a\xffb", `"a\ufffdb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := Op{Process: 1, Type: OK, F: "f", Value: tt.value}
			got := string(AppendJSON(nil, &op))
			want := `{"index":0,"time":0,"process":1,"type":"ok","f":"f","value":` + tt.want + `}`
			if got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("encoding/json rejects %s", got)
			}
		})
	}
}

// TestAppendJSONNeverFails checks the fallbacks AppendJSON uses where WriteJSONL
// reports an error.
func TestAppendJSONNeverFails(t *testing.T) {
	cyclic := []any{nil}
	cyclic[0] = cyclic
	tests := []struct {
		name    string
		op      Op
		wantErr string
	}{
		{"unknown type", Op{Type: "done"}, `invalid op type "done"`},
		{"value outside the model", Op{Type: OK, Value: struct{ A int }{1}}, "unsupported value type struct { A int }"},
		{"extra names a core field", Op{Type: OK, Extra: map[string]any{"time": int64(1)}}, `an Op.Extra key names a core field: "time"`},
		{"value contains itself", Op{Type: OK, Value: cyclic}, "nests deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := AppendJSON(nil, &tt.op)
			if !json.Valid(line) {
				t.Errorf("AppendJSON wrote invalid JSON %s", line)
			}
			err := WriteJSONL(&bytes.Buffer{}, []Op{tt.op})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("WriteJSONL error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestJSONLRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, fixtureOps()); err != nil {
		t.Fatal(err)
	}
	file, err := Read(&buf, "fixture", JSONL)
	if err != nil {
		t.Fatal(err)
	}
	if file.Format != JSONL || file.TruncatedTail {
		t.Errorf("format %s, truncated %v", file.Format, file.TruncatedTail)
	}
	assertSameOps(t, file.Ops, jsonViewOps(fixtureOps()))
}

func TestParseJSONLineErrors(t *testing.T) {
	const ok = `"process":0,"type":"ok"`
	tests := []struct {
		line string
		col  int
		msg  string
	}{
		{``, 1, `expected an op object '{', found end of line`},
		{`[1]`, 1, `expected an op object '{', found '['`},
		{`{"index":1`, 11, `expected ',' or '}' after the value of "index", found end of line`},
		{`{"index":"x",` + ok + `}`, 10, `"index": expected an integer, found the string "x"`},
		{`{"process":0}`, 1, `op has no "type"`},
		{`{"process":0,"type":"okk"}`, 21, `"type": expected one of invoke, ok, fail or info, found the string "okk"`},
		{`{"process":"nemesis2","type":"ok"}`, 12, `"process": expected a process number, "nemesis" or null, found the string "nemesis2"`},
		{`{"process":0,"process":1,"type":"ok"}`, 14, `duplicate key "process"`},
		{`{` + ok + `} x`, 27, `expected the end of the line after the op object, found 'x'`},
		{`{"process":01,"type":"ok"}`, 12, `expected a number without leading zeros, found "01"`},
		{`{` + ok + `,"value":"a\qb"}`, 36, `expected one of \" \\ \/ \b \f \n \r \t \uXXXX after '\', found 'q'`},
		{`{` + ok + `,"value":"a\u12x4"}`, 36, `expected four hex digits after \u, found "12x4"`},
		{`{` + ok + `,"value":tru}`, 34, `expected true, found '}'`},
		{`{` + ok + `,"value":-}`, 35, `expected a digit, found '}'`},
		{`{` + ok + `,"value":1.}`, 36, `expected a digit after '.', found '}'`},
		{`{` + ok + `,"value":99999999999999999999}`, 34, `integer 99999999999999999999 is out of range for 64 bits`},
		{`{` + ok + `,"value":[1,2}`, 38, `expected ',' or ']' in an array, found '}'`},
		{`{` + ok + `,"value":{"a":1,"a":2}}`, 41, `duplicate key "a"`},
		{`{` + ok + `,"value":{1:2}}`, 35, `expected a quoted key, found '1'`},
		{`{` + ok + `,"value":"a` + "\t" + `"}`, 36, `found control character 0x09`},
		{`{` + ok + `,"value":@}`, 34, `expected a JSON value, found '@'`},
		{`{"f":"héé",:}`, 12, `expected a quoted key, found ':'`},
		{`{"f":"héé","fault_epoch":"x",` + ok + `}`, 26, `"fault_epoch": expected an integer or nothing, found the string "x"`},
		{`{"node":5,` + ok + `}`, 9, `"node": expected a string, a keyword or nothing, found the integer 5`},
		{`{` + ok + `,"value":` + strings.Repeat("[", maxDepth+1), 34 + maxDepth, `values nest deeper than 1000 levels`},
	}
	for _, tt := range tests {
		t.Run(clip([]byte(tt.line)), func(t *testing.T) {
			_, err := ParseJSONLine([]byte(tt.line))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if pe.Line != 1 || pe.Col != tt.col || pe.Msg != tt.msg && !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got %d:%d: %s\nwant 1:%d: %s", pe.Line, pe.Col, pe.Msg, tt.col, tt.msg)
			}
		})
	}
}

// TestReadJSONLTail covers the one tolerated defect: a torn last line.
func TestReadJSONLTail(t *testing.T) {
	const line0 = `{"index":0,"time":5,"process":1,"type":"invoke","f":"read","value":null}`
	const line1 = `{"index":1,"time":9,"process":1,"type":"ok","f":"read","value":3}`
	tests := []struct {
		name      string
		in        string
		ops       int
		truncated bool
		errAt     string // "line:col" of the expected ParseError
	}{
		{"complete", line0 + "\n" + line1 + "\n", 2, false, ""},
		{"CRLF and blank lines", line0 + "\r\n\r\n" + line1 + "\r\n", 2, false, ""},
		{"last line without newline", line0 + "\n" + line1, 2, false, ""},
		{"torn last line", line0 + "\n" + line1[:30], 1, true, ""},
		{"torn in a string", line0 + "\n" + line1[:44], 1, true, ""},
		{"torn after the brace", line0 + "\n{", 1, true, ""},
		{"only a torn line", line1[:10], 0, true, ""},
		{"torn line not last", line1[:30] + "\n" + line0 + "\n", 0, false, "1:31"},
		{"bad last line is not torn", line0 + "\n" + `{"process":1,"type":"okk"}`, 0, false, "2:21"},
		{"garbage last line is not torn", line0 + "\n" + `{"index" 1`, 0, false, "2:10"},
		{"torn line followed by a newline", line0 + "\n" + line1[:30] + "\n", 0, false, "2:31"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := Read(strings.NewReader(tt.in), "h.jsonl", JSONL)
			if tt.errAt != "" {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error = %v, want a ParseError at %s", err, tt.errAt)
				}
				if !strings.HasPrefix(pe.Error(), "h.jsonl:"+tt.errAt+": ") {
					t.Errorf("error %q, want it at h.jsonl:%s", pe, tt.errAt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(file.Ops) != tt.ops || file.TruncatedTail != tt.truncated {
				t.Errorf("got %d ops, truncated %v; want %d, %v", len(file.Ops), file.TruncatedTail, tt.ops, tt.truncated)
			}
		})
	}
}

func FuzzJSONL(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, fixtureOps()); err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		f.Add([]byte(line))
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"process":"nemesis","type":"info","value":"\ud83d\ude00\ud800","x":[1e5,-0,0.5E-3]}`))
	f.Add([]byte("{\"index\":1,\"ti"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParseJSONLine(data); err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseJSONLine error %v is not a *ParseError", err)
			}
		}
		file, err := Read(bytes.NewReader(data), "fuzz", JSONL)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Read error %v is not a *ParseError", err)
			}
			return
		}
		assertRoundTrips(t, file.Ops, true)
	})
}

// assertRoundTrips writes ops as JSONL and as EDN and checks that both read
// back as the same ops. JSON keeps fewer types, so its result is compared
// with the JSON view unless fromJSON says the ops already are in it.
func assertRoundTrips(t *testing.T, ops []Op, fromJSON bool) {
	t.Helper()
	var jsonl, edn bytes.Buffer
	if err := WriteJSONL(&jsonl, ops); err != nil {
		t.Fatalf("WriteJSONL: %v", err)
	}
	if err := WriteEDN(&edn, ops); err != nil {
		t.Fatalf("WriteEDN: %v", err)
	}
	back, err := Read(bytes.NewReader(jsonl.Bytes()), "jsonl", JSONL)
	if err != nil {
		t.Fatalf("re-reading JSONL: %v\n%s", err, jsonl.Bytes())
	}
	want := ops
	if !fromJSON {
		want = jsonViewOps(ops)
	}
	assertSameOps(t, back.Ops, want)
	back, err = Read(bytes.NewReader(edn.Bytes()), "edn", EDN)
	if err != nil {
		t.Fatalf("re-reading EDN: %v\n%s", err, edn.Bytes())
	}
	assertSameOps(t, back.Ops, ops)
}

// BenchmarkAppendJSON compares the hand-written encoder with encoding/json
// writing the same line for the same op, in the same run.
func BenchmarkAppendJSON(b *testing.B) {
	op := contractOp()
	mirror := func(op *Op) any {
		type jsonOp struct {
			Index      int64  `json:"index"`
			Time       int64  `json:"time"`
			Process    any    `json:"process"`
			Type       Type   `json:"type"`
			F          string `json:"f"`
			Key        any    `json:"key,omitempty"`
			Value      any    `json:"value"`
			Error      any    `json:"error,omitempty"`
			Node       string `json:"node,omitempty"`
			FaultEpoch int    `json:"fault_epoch,omitempty"`
		}
		return &jsonOp{op.Index, op.Time, op.Process, op.Type, op.F, op.Key, op.Value, op.Error, op.Node, op.FaultEpoch}
	}
	std, err := json.Marshal(mirror(&op))
	if err != nil {
		b.Fatal(err)
	}
	if ours := AppendJSON(nil, &op); !bytes.Equal(ours, std) {
		b.Fatalf("the two encoders disagree:\n%s\n%s", ours, std)
	}
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for b.Loop() {
			buf = AppendJSON(buf[:0], &op)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(mirror(&op)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadJSONL measures reading a journal back.
func BenchmarkReadJSONL(b *testing.B) {
	path := filepath.Join(b.TempDir(), "h.jsonl")
	ops := make([]Op, 10000)
	for i := range ops {
		ops[i] = contractOp()
		ops[i].Index = int64(i)
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, ops); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(buf.Bytes()), path, JSONL); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ops)), "ns/histop")
}
