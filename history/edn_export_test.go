package history

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"olympos.io/encoding/edn"
)

// TestIsKeywordName pins which texts are written as keywords: those the EDN
// spec allows and Clojure's reader accepts. Everything else is a string.
func TestIsKeywordName(t *testing.T) {
	tests := []struct {
		s    string
		want bool
		why  string
	}{
		{"read", true, "plain"},
		{"start-partition", true, "hyphen"},
		{"fault_epoch", true, "underscore"},
		{"ok?", true, "question mark"},
		{"a*b+c!d_e?f$g%h&i=j<k>l", true, "every allowed punctuation"},
		{"a.b", true, "dot inside"},
		{"x1", true, "digit after the first character"},
		{"a:b", true, "':' after the first character"},
		{"a#b", true, "'#' after the first character"},
		{"jepsen.db/setup", true, "one namespace separator"},
		{"-", true, "a lone minus"},
		{"+", true, "a lone plus"},
		{"-x", true, "minus then a letter"},
		{".x", true, "dot then a letter"},
		{"*", true, "a lone star"},
		{"café", true, "non-ASCII letter"},
		{"nil", true, ":nil is a keyword, not nil"},
		{"", false, "empty"},
		{"1x", false, "starts with a digit"},
		{"1", false, "an integer map key"},
		{"-1", false, "minus then a digit"},
		{"+1", false, "plus then a digit"},
		{".5", false, "dot then a digit"},
		{":x", false, "would be ::x"},
		{"#x", false, "'#' first"},
		{"fault epoch", false, "space"},
		{"a,b", false, "comma is whitespace"},
		{"a/b/c", false, "two slashes"},
		{"/x", false, "empty namespace"},
		{"x/", false, "empty name"},
		{"/", false, "a lone slash"},
		{"a/1", false, "name starts with a digit"},
		{"a/:b", false, "name starts with ':'"},
		{"a::b", false, "Clojure refuses '::' inside"},
		{"x:", false, "Clojure refuses a trailing ':'"},
		{"a:/b", false, "Clojure refuses a namespace ending in ':'"},
		{"x'", false, "quote is not an EDN symbol character"},
		{"a|b", false, "bar"},
		{"a\\b", false, "backslash"},
		{"a\"b", false, "double quote"},
		{"a(b", false, "paren"},
		{"a@b", false, "at sign"},
		{"a^b", false, "caret"},
		{"a~b", false, "tilde"},
		{"a;b", false, "comment start"},
		{"tab\tx", false, "control character"},
		{"x😀", false, "a symbol character that is not a letter"},
		{"k\xff", false, "invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			if got := isKeywordName(tt.s); got != tt.want {
				t.Errorf("isKeywordName(%q) = %v, want %v (%s)", tt.s, got, tt.want, tt.why)
			}
		})
	}
}

// TestExportEDNSpellings pins the exact text for what is easy to get wrong:
// keys and values that cannot be keywords, and the nemesis invocation.
func TestExportEDNSpellings(t *testing.T) {
	tests := []struct {
		name string
		op   Op
		want string
	}{
		{"nemesis invocation is info",
			Op{Index: 2, Time: 20, Process: NemesisProcess, Type: Invoke, F: "start-partition", Value: Keyword("majority")},
			`{:index 2, :time 20, :type :info, :process :nemesis, :f :start-partition, :value :majority}`},
		{"nemesis completion stays info",
			Op{Index: 3, Time: 30, Process: NemesisProcess, Type: Info, F: "start-partition", Value: nil, FaultEpoch: 1},
			`{:index 3, :time 30, :type :info, :process :nemesis, :f :start-partition, :value nil, :fault_epoch 1}`},
		{"client invocation stays invoke",
			Op{Process: 4, Type: Invoke, F: "read"},
			`{:index 0, :time 0, :type :invoke, :process 4, :f :read, :value nil}`},
		{"map keys that are not keywords are strings",
			Op{Process: 0, Type: OK, F: "read", Value: map[string]any{
				"1": int64(1), "a/b/c": int64(2), "fault epoch": int64(3), "x:": int64(4), "n1": int64(5), "-1": int64(6)}},
			`{:index 0, :time 0, :type :ok, :process 0, :f :read, :value {"-1" 6, "1" 1, "a/b/c" 2, "fault epoch" 3, :n1 5, "x:" 4}}`},
		{"extra keys that are not keywords are strings",
			Op{Process: 0, Type: OK, F: "read", Extra: map[string]any{"2pc": true, "ns/name": true, "::x": true}},
			`{:index 0, :time 0, :type :ok, :process 0, :f :read, :value nil, "2pc" true, "::x" true, :ns/name true}`},
		{"f that is not a keyword is a string",
			Op{Process: 0, Type: OK, F: "1st read"},
			`{:index 0, :time 0, :type :ok, :process 0, :f "1st read", :value nil}`},
		{"keywords without a spelling become strings",
			Op{Process: 0, Type: Fail, F: "add", Value: Set{Keyword("ok"), Keyword("1x")},
				Error: []any{Keyword("a/b/c"), map[string]any{"k": Keyword("x y")}}},
			`{:index 0, :time 0, :type :fail, :process 0, :f :add, :value #{:ok "1x"}, :error ["a/b/c" {:k "x y"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := ExportEDN(&buf, []Op{tt.op}); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSuffix(buf.String(), "\n"); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestWriteEDNRefusesUnspellableKeyword: the faithful writer does not
// silently turn a keyword into a string; ExportEDN is the one that does.
func TestWriteEDNRefusesUnspellableKeyword(t *testing.T) {
	for _, kw := range []Keyword{"1x", "a/b/c", ":x", "x'"} {
		err := WriteEDN(io.Discard, []Op{{Type: OK, Value: kw}})
		if err == nil || !strings.Contains(err.Error(), "has no EDN spelling") {
			t.Errorf("WriteEDN(%q) error = %v, want a refusal", kw, err)
		}
		if err := ExportEDN(io.Discard, []Op{{Type: OK, Value: kw}}); err != nil {
			t.Errorf("ExportEDN(%q): %v", kw, err)
		}
	}
}

func TestJepsenOps(t *testing.T) {
	inner := []any{Keyword("ok"), Keyword("1x")}
	tests := []struct {
		name string
		in   Op
		want Op
	}{
		{"nemesis invoke becomes info",
			Op{Process: NemesisProcess, Type: Invoke, F: "kill", Value: []any{"n1"}},
			Op{Process: NemesisProcess, Type: Info, F: "kill", Value: []any{"n1"}}},
		{"nemesis info unchanged",
			Op{Process: NemesisProcess, Type: Info, F: "kill"},
			Op{Process: NemesisProcess, Type: Info, F: "kill"}},
		{"nemesis ok unchanged",
			Op{Process: NemesisProcess, Type: OK, F: "kill"},
			Op{Process: NemesisProcess, Type: OK, F: "kill"}},
		{"client invoke unchanged",
			Op{Process: 0, Type: Invoke, F: "read"},
			Op{Process: 0, Type: Invoke, F: "read"}},
		{"valid keywords kept",
			Op{Process: 0, Type: OK, Key: Keyword("k"), Value: []any{Keyword("append"), int64(1)}, Error: Keyword("jepsen/timeout")},
			Op{Process: 0, Type: OK, Key: Keyword("k"), Value: []any{Keyword("append"), int64(1)}, Error: Keyword("jepsen/timeout")}},
		{"keywords without a spelling become strings at any depth",
			Op{Process: 0, Type: OK, Key: Keyword("1"), Value: map[string]any{"a": Set{inner}}, Error: Keyword("a b"),
				Extra: map[string]any{"x": []any{Keyword("::y")}, "z": Keyword("z")}},
			Op{Process: 0, Type: OK, Key: "1", Value: map[string]any{"a": Set{[]any{Keyword("ok"), "1x"}}}, Error: "a b",
				Extra: map[string]any{"x": []any{"::y"}, "z": Keyword("z")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JepsenOps([]Op{tt.in})
			assertSameOps(t, got, []Op{tt.want})
			assertSameOps(t, JepsenOps(got), got) // idempotent
		})
	}
	if inner[1] != Keyword("1x") {
		t.Errorf("JepsenOps changed its input: %#v", inner)
	}
}

// exportRoundTrip exports ops, reads the EDN back and checks that it is
// JepsenOps(ops): the ops as far as EDN (and Jepsen) carry them.
func exportRoundTrip(t *testing.T, ops []Op) {
	t.Helper()
	var buf bytes.Buffer
	if err := ExportEDN(&buf, ops); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(buf.Bytes()), "export.edn", Auto)
	if err != nil {
		t.Fatalf("reading the export back: %v", err)
	}
	if len(ops) > 0 && back.Format != EDN {
		t.Errorf("export detected as %s, want edn", back.Format)
	}
	assertSameOps(t, back.Ops, JepsenOps(ops))
}

// TestExportEDNRoundTripRecorded exports every history the repository holds:
// the importer goldens (JSONL, as faultline records), their EDN and log
// inputs, and both shared corpora. Histories that came from Jepsen are already
// in its conventions, so for them import(export(h)) is h itself.
func TestExportEDNRoundTripRecorded(t *testing.T) {
	var files []string
	for _, pattern := range []string{"*.golden.jsonl", "*.edn", "*.log"} {
		m, err := filepath.Glob(filepath.Join("testdata", pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	files = append(files, corpusFiles(t, "porcupine-etcd", "*.log")...)
	files = append(files, corpusFiles(t, "porcupine-kv", "*.txt")...)
	if len(files) < 10 {
		t.Fatalf("found %d recorded histories, want more", len(files))
	}
	nemesis := 0
	for _, path := range files {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			file, err := ReadFile(path, Auto)
			if err != nil {
				t.Fatal(err)
			}
			exportRoundTrip(t, file.Ops)
			if file.Format != JSONL {
				assertSameOps(t, JepsenOps(file.Ops), file.Ops)
			}
			for _, op := range file.Ops {
				if op.IsNemesis() {
					nemesis++
				}
			}
		})
	}
	if nemesis == 0 {
		t.Error("no recorded history has nemesis ops: the round trip proves nothing about them")
	}
	t.Run("fixture", func(t *testing.T) { exportRoundTrip(t, fixtureOps()) })
	t.Run("recorded by faultline", func(t *testing.T) { exportRoundTrip(t, exportOps()) })
}

// exportOps is a history as faultline records it (the nemesis invocation is
// invoke) holding what a Clojure reader must get right: nemesis ops, keywords,
// sets, maps, nested vectors, strings with quotes and newlines, and keys and
// keywords that are not valid EDN keywords.
func exportOps() []Op {
	return []Op{
		{Index: 0, Time: 0, Process: 0, Type: Invoke, F: "write", Key: "k1", Value: "say \"hi\"\nthen \\ leave", Node: "n1"},
		{Index: 1, Time: 10, Process: 0, Type: OK, F: "write", Key: "k1", Value: "say \"hi\"\nthen \\ leave", Node: "n1"},
		{Index: 2, Time: 20, Process: NemesisProcess, Type: Invoke, F: "start-partition",
			Value: map[string]any{"n1": []any{"n2", "n3"}, "1": "digit key", "a/b/c": int64(2), "fault epoch": 2.5, "ok?": true, "x:": nil}},
		{Index: 3, Time: 30, Process: NemesisProcess, Type: Info, F: "start-partition", Value: Keyword("isolated"),
			Extra: map[string]any{"evidence": map[string]any{"drops": int64(12)}, "bad key": Keyword("jepsen.nemesis/partition")}, FaultEpoch: 1},
		{Index: 4, Time: 40, Process: 1, Type: OK, F: "txn", FaultEpoch: 1,
			Value: []any{[]any{Keyword("append"), int64(5), int64(1)}, []any{Keyword("r"), int64(5), []any{int64(1), int64(2)}}}},
		{Index: 5, Time: 50, Process: 2, Type: Fail, F: "add", Value: Set{int64(1), "two", Keyword("three")}, Error: Keyword("1x"), FaultEpoch: 1},
		{Index: 6, Time: 60, Process: 3, Type: Info, F: "read all", Error: []any{Keyword("timed-out"), "no reply\tin 5s"}, FaultEpoch: 1},
		{Index: 7, Time: 70, Process: 4, Type: OK, F: "", Value: []any{false, nil, map[string]any{}, []any{}, Set{}, -0.5}},
	}
}

// TestExportEDNReadByGoEDN decodes the export with an independent EDN reader
// (olympos.io/encoding/edn) and checks every value, with the exact Go type
// it gives keywords, strings and collections.
func TestExportEDNReadByGoEDN(t *testing.T) {
	var buf bytes.Buffer
	if err := ExportEDN(&buf, exportOps()); err != nil {
		t.Fatal(err)
	}
	type kw = edn.Keyword
	type m = map[any]any
	want := []m{
		{kw("index"): int64(0), kw("time"): int64(0), kw("type"): kw("invoke"), kw("process"): int64(0), kw("f"): kw("write"),
			kw("key"): "k1", kw("value"): "say \"hi\"\nthen \\ leave", kw("node"): "n1"},
		{kw("index"): int64(1), kw("time"): int64(10), kw("type"): kw("ok"), kw("process"): int64(0), kw("f"): kw("write"),
			kw("key"): "k1", kw("value"): "say \"hi\"\nthen \\ leave", kw("node"): "n1"},
		{kw("index"): int64(2), kw("time"): int64(20), kw("type"): kw("info"), kw("process"): kw("nemesis"), kw("f"): kw("start-partition"),
			kw("value"): m{kw("n1"): []any{"n2", "n3"}, "1": "digit key", "a/b/c": int64(2), "fault epoch": 2.5, kw("ok?"): true, "x:": nil}},
		{kw("index"): int64(3), kw("time"): int64(30), kw("type"): kw("info"), kw("process"): kw("nemesis"), kw("f"): kw("start-partition"),
			kw("value"): kw("isolated"), kw("fault_epoch"): int64(1),
			kw("evidence"): m{kw("drops"): int64(12)}, "bad key": kw("jepsen.nemesis/partition")},
		{kw("index"): int64(4), kw("time"): int64(40), kw("type"): kw("ok"), kw("process"): int64(1), kw("f"): kw("txn"), kw("fault_epoch"): int64(1),
			kw("value"): []any{[]any{kw("append"), int64(5), int64(1)}, []any{kw("r"), int64(5), []any{int64(1), int64(2)}}}},
		{kw("index"): int64(5), kw("time"): int64(50), kw("type"): kw("fail"), kw("process"): int64(2), kw("f"): kw("add"), kw("fault_epoch"): int64(1),
			kw("value"): map[any]bool{int64(1): true, "two": true, kw("three"): true}, kw("error"): "1x"},
		{kw("index"): int64(6), kw("time"): int64(60), kw("type"): kw("info"), kw("process"): int64(3), kw("f"): "read all", kw("fault_epoch"): int64(1),
			kw("value"): nil, kw("error"): []any{kw("timed-out"), "no reply\tin 5s"}},
		{kw("index"): int64(7), kw("time"): int64(70), kw("type"): kw("ok"), kw("process"): int64(4), kw("f"): nil,
			kw("value"): []any{false, nil, m{}, []any{}, map[any]bool{}, -0.5}},
	}
	dec := edn.NewDecoder(bytes.NewReader(buf.Bytes()))
	for i := 0; ; i++ {
		var got any
		err := dec.Decode(&got)
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				t.Fatalf("decoded %d ops, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatalf("go-edn rejects op %d: %v\n%s", i, err, buf.Bytes())
		}
		if i >= len(want) {
			t.Fatalf("more than %d ops decoded", len(want))
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("op %d:\n got %#v\nwant %#v", i, got, want[i])
		}
	}
}
