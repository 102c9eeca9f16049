package history_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
)

// readSplitAndWhole reads data split as often as it can be and in one
// piece.
func readSplitAndWhole(data []byte) (split, whole *history.File, splitErr, wholeErr error) {
	restore := history.SplitAlways()
	split, splitErr = history.Read(bytes.NewReader(data), "h.edn", history.EDN)
	restore()
	defer history.SplitNever()()
	whole, wholeErr = history.Read(bytes.NewReader(data), "h.edn", history.EDN)
	return
}

// TestSplitMatchesWhole: reading an EDN history in pieces on several cores
// gives exactly the ops, lines and errors of reading it in one piece, for
// one op per line (with and without :index and :time), and for inputs where
// a line starting with '{' is not between ops (multi-line maps, strings,
// vectors of ops), which must fall back to one piece.
func TestSplitMatchesWhole(t *testing.T) {
	var perLine, noIndex strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&perLine, "{:type :invoke, :f :txn, :value [[:append %d %d] [:r %d nil]], :process %d, :time %d, :index %d}\n", i%7, i, i%5, i%10, 1000*i, 2*i)
		fmt.Fprintf(&noIndex, "{:type :ok, :f :read, :value %d, :process %d}\n", i, i%3)
	}
	cases := map[string]string{
		"one op per line":       perLine.String(),
		"no index or time":      noIndex.String(),
		"tagged ops":            strings.ReplaceAll(noIndex.String(), "{:type", "#jepsen.history.Op{:type"),
		"multi-line maps":       strings.ReplaceAll(perLine.String(), ", :value", ",\n:value"),
		"nested map at a line":  strings.ReplaceAll(noIndex.String(), ", :process", ", :x\n{:a 1}, :process"),
		"string across lines":   strings.ReplaceAll(noIndex.String(), ":value 7,", ":value \"a\n{:type :ok, :process 9}\","),
		"a vector of ops":       "[" + perLine.String() + "]",
		"comments and blanks":   strings.ReplaceAll(noIndex.String(), "\n", "\n; a comment\n\n"),
		"an error in the tail":  noIndex.String() + "{:type :ok, :f :read}\n",
		"an error in the head":  "{:type :nope, :process 0}\n" + noIndex.String(),
		"a vector after maps":   noIndex.String() + "[{:type :ok, :process 1, :f :read}]\n",
		"discard at line start": strings.ReplaceAll(noIndex.String(), "{:type :ok, :f :read, :value 250,", "#_{:a 1}\n{:type :ok, :f :read, :value 250,"),
	}
	for _, name := range []string{"fixture.golden.edn", "knossos-vector.edn", "per-line.edn"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		cases[name] = string(data)
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			split, whole, err1, err2 := readSplitAndWhole([]byte(text))
			if fmt.Sprint(err1) != fmt.Sprint(err2) {
				t.Fatalf("split error %v, whole %v", err1, err2)
			}
			if err1 == nil && !same(split, whole) {
				t.Fatalf("split and whole differ:\n%#v\n%#v", split, whole)
			}
		})
	}
}

func FuzzSplitMatchesWhole(f *testing.F) {
	for _, s := range []string{
		"{:type :ok, :process 0, :f :read, :value 1}\n{:type :ok, :process 1, :f :read, :value 2}\n",
		"{:type :ok, :process 0,\n:f :read}\n{:type :ok, :process 1}\n",
		"[{:type :ok, :process 0}\n{:type :ok, :process 1}]\n",
		"{:type :ok, :process 0, :value \"x\n{:y 1}\"}\n{:type :ok, :process 1}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		split, whole, err1, err2 := readSplitAndWhole(data)
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("split error %v, whole %v", err1, err2)
		}
		if err1 == nil && !same(split, whole) {
			t.Fatalf("split %#v\nwhole %#v", split, whole)
		}
	})
}

// same compares two reads field by field, NaN equal to NaN (DeepEqual
// would call a history holding ##NaN different from itself).
func same(a, b *history.File) bool { return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) }
