package control

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseNode(t *testing.T) {
	tests := []struct {
		in   string
		want Node
		err  string
	}{
		{in: "n1", want: Node{Name: "n1", Host: "n1"}},
		{in: "10.77.0.1", want: Node{Name: "10.77.0.1", Host: "10.77.0.1"}},
		{in: "10.77.0.1:2222", want: Node{Name: "10.77.0.1:2222", Host: "10.77.0.1", Port: 2222}},
		{in: "n1=10.77.0.1", want: Node{Name: "n1", Host: "10.77.0.1"}},
		{in: "n1=10.77.0.1:22", want: Node{Name: "n1", Host: "10.77.0.1", Port: 22}},
		{in: " n1 = db-1.example.com:2200 ", want: Node{Name: "n1", Host: "db-1.example.com", Port: 2200}},
		{in: "::1", want: Node{Name: "::1", Host: "::1"}},
		{in: "[::1]:2222", want: Node{Name: "[::1]:2222", Host: "::1", Port: 2222}},
		{in: "n6=fe80::1", want: Node{Name: "n6", Host: "fe80::1"}},
		{in: "n6=[fe80::1]:22", want: Node{Name: "n6", Host: "fe80::1", Port: 22}},
		{in: "", err: "empty"},
		{in: "n1=", err: "empty address"},
		{in: "=host", err: "empty node name"},
		{in: "host:0", err: "bad port"},
		{in: "host:65536", err: "bad port"},
		{in: "host:ssh", err: "bad port"},
		{in: "host:", err: "empty port"},
		{in: "[::1]:", err: "unexpected"},
		{in: "[::1", err: "missing ]"},
		{in: "[::1]x", err: "unexpected"},
		{in: "[host]:22", err: "not an IPv6"},
		{in: "a b", err: "contains"},
		{in: "h;rm", err: "contains"},
		{in: "n 1=h", err: "contains"},
		{in: "n1=h=x", err: "contains"},
	}
	for _, tt := range tests {
		got, err := ParseNode(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseNode(%q) = %+v, %v; want error containing %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseNode(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseNodes(t *testing.T) {
	got, err := ParseNodes("n1=10.0.0.1, n2=10.0.0.2:2222 ,10.0.0.3,,")
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{{Name: "n1", Host: "10.0.0.1"}, {Name: "n2", Host: "10.0.0.2", Port: 2222}, {Name: "10.0.0.3", Host: "10.0.0.3"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseNodes = %+v, want %+v", got, want)
	}
	if got, err := ParseNodes(" n1 n2\tn3 "); err != nil || len(got) != 3 {
		t.Errorf("a list without commas splits on spaces: %+v, %v", got, err)
	}
	for in, msg := range map[string]string{
		"":              "no nodes",
		" , ":           "no nodes",
		"n1,n1":         "listed twice",
		"n1=a,n1=b":     "listed twice",
		"n1,host:99999": "bad port",
		"n1,n 2,n3":     `entry "n 2" has a space inside`,
		"n1, n2 n3":     `entry "n2 n3" has a space inside`,
	} {
		if _, err := ParseNodes(in); err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "--nodes: ") {
			t.Errorf("ParseNodes(%q) error = %v, want --nodes: ... %s", in, err, msg)
		}
	}
}

func TestParseNodeList(t *testing.T) {
	got, err := ParseNodeList([]string{"n1=10.0.0.1:22", "n2"})
	want := []Node{{Name: "n1", Host: "10.0.0.1", Port: 22}, {Name: "n2", Host: "n2"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseNodeList = %+v, %v; want %+v", got, err, want)
	}
	for _, in := range [][]string{nil, {"a", "a"}, {"a b"}} {
		if _, err := ParseNodeList(in); err == nil {
			t.Errorf("ParseNodeList(%q) succeeded", in)
		}
	}
}

// TestReadNodesFile reads testdata/nodes, which mixes every accepted form.
func TestReadNodesFile(t *testing.T) {
	got, err := ReadNodesFile(filepath.Join("testdata", "nodes"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{
		{Name: "n1", Host: "10.77.0.1", Port: 0},
		{Name: "n2", Host: "10.77.0.2", Port: 22},
		{Name: "n3", Host: "10.77.0.3", Port: 0},
		{Name: "n4", Host: "10.77.0.4", Port: 2222},
		{Name: "n5", Host: "10.77.0.5", Port: 22},
		{Name: "db.example.com", Host: "db.example.com", Port: 0},
		{Name: "[::1]:2200", Host: "::1", Port: 2200},
		{Name: "n8", Host: "fe80::8", Port: 22},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadNodesFile =\n %+v\nwant\n %+v", got, want)
	}
}

func TestReadNodesFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ text, msg string }{
		{"# only a comment\n\n", "no nodes"},
		{"n1 10.0.0.1\nn2 10.0.0.2 22 extra\n", ":2: want one node per line"},
		{"n1 10.0.0.1\nn1 10.0.0.2\n", "node n1 listed twice"},
		{"n1 10.0.0.1:22 23\n", ":1: node n1: port given twice"},
		{"n1=x 10.0.0.1\n", ":1: node \"n1=x\": use either"},
		{"n1 10.0.0.1 zz\n", ":1: node n1: bad port"},
		{"n$ 10.0.0.1\n", ":1: node name"},
	}
	for i, tt := range tests {
		p := filepath.Join(dir, "nodes"+string(rune('a'+i)))
		if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadNodesFile(p)
		if err == nil || !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("ReadNodesFile(%q) error = %v, want %s prefixed by the path", tt.text, err, tt.msg)
		}
	}
	if _, err := ReadNodesFile(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "nodes file") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestNodeAddr(t *testing.T) {
	for _, tt := range []struct {
		n    Node
		want string
	}{
		{Node{Host: "10.0.0.1"}, "10.0.0.1:22"},
		{Node{Host: "10.0.0.1", Port: 2222}, "10.0.0.1:2222"},
		{Node{Host: "::1"}, "[::1]:22"},
	} {
		if got := tt.n.Addr(22); got != tt.want {
			t.Errorf("%+v.Addr(22) = %s, want %s", tt.n, got, tt.want)
		}
	}
}

// FuzzParseNodes checks that no input panics, that accepted nodes are
// well-formed, and that a node printed as name=host:port parses back to
// itself.
func FuzzParseNodes(f *testing.F) {
	for _, s := range []string{"n1", "n1=10.0.0.1:22", "[::1]:22", "a,b c", "n1 10.0.0.1 22\n# c\nn2", "::1", "x=[::1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(nodes []Node) {
			for _, n := range nodes {
				if n.Name == "" || n.Host == "" || n.Port < 0 || n.Port > 65535 {
					t.Fatalf("accepted malformed node %+v from %q", n, s)
				}
				port := n.Port
				if port == 0 {
					port = 1
				}
				again, err := ParseNode(n.Name + "=" + Node{Host: n.Host, Port: port}.Addr(port))
				if err != nil || again.Name != n.Name || again.Host != n.Host || again.Port != port {
					t.Fatalf("round trip of %+v: got %+v, %v", n, again, err)
				}
			}
		}
		if nodes, err := ParseNodes(s); err == nil {
			check(nodes)
		}
		if nodes, err := ParseNodesFile(strings.NewReader(s), "fuzz"); err == nil {
			check(nodes)
		}
	})
}
