package nemesis

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseChainGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/chain.txt")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ParseChain(string(data))
	if err != nil {
		t.Fatal(err)
	}
	want := ChainState{Jumped: true, Rules: []Rule{
		{Packets: 12, Bytes: 720, Target: "DROP", Source: "10.81.0.12"},
		{Packets: 3, Bytes: 180, Target: "DROP", Source: "10.81.0.13"},
		{Packets: 0, Bytes: 0, Target: "DROP", Source: "0.0.0.0/0", Extra: "statistic mode random probability 0.50000000000"},
	}}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("got %+v\nwant %+v", st, want)
	}
	if st.Drops() != 15 || !st.hasDrop("10.81.0.13") || st.hasDrop("10.81.0.14") {
		t.Errorf("drops %d, hasDrop wrong", st.Drops())
	}
}

func TestParseChainErrors(t *testing.T) {
	for _, in := range []string{"", "x\n", "1\n12 x DROP all -- * * 1.2.3.4 0.0.0.0/0\n", "1\n1 2 DROP\n"} {
		if _, err := ParseChain(in); err == nil {
			t.Errorf("ParseChain(%q): want an error", in)
		}
	}
}

func FuzzParseChain(f *testing.F) {
	if data, err := os.ReadFile("testdata/chain.txt"); err == nil {
		f.Add(string(data))
	}
	f.Add("0\n")
	f.Fuzz(func(t *testing.T, in string) {
		st, err := ParseChain(in)
		if err != nil {
			return
		}
		if st.Drops() < 0 {
			t.Fatalf("negative drops from %q", in)
		}
	})
}

func FuzzParseStates(f *testing.F) {
	f.Add("12 T\n13 gone\n")
	f.Add("x y z\n")
	f.Add("skip 14\n12 S\n")
	f.Fuzz(func(t *testing.T, in string) {
		got := parseStates(in)
		for pid, st := range got.states {
			if pid == "" || st == "" {
				t.Fatalf("empty pid or state from %q", in)
			}
		}
		for _, pid := range got.skipped {
			if pid == "" {
				t.Fatalf("empty skipped pid from %q", in)
			}
		}
	})
}

func FuzzTCTime(f *testing.F) {
	for _, s := range []string{"50ms", "1s", "0.5s", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if tcTime(s) && (strings.ContainsAny(s, " \t\n-") || s == "") {
			t.Fatalf("tcTime accepted %q", s)
		}
	})
}
