package hostile

import (
	"strings"
	"testing"
)

// TestCorpus: the corpus decodes, names are unique, the marker replaces
// every token, and it holds each kind of input the consumers rely on.
func TestCorpus(t *testing.T) {
	ins := Inputs(t, "/m")
	seen := map[string]bool{}
	for _, in := range ins {
		if seen[in.Name] {
			t.Errorf("input %q twice", in.Name)
		}
		seen[in.Name] = true
		if strings.Contains(in.Value, MarkerToken) {
			t.Errorf("%s: token left in %q", in.Name, in.Value)
		}
	}
	for _, want := range []string{"$(touch /m)", "`touch /m`", "\x00", "\n", "\r", "..", "'", "\"", "@lib//../x"} {
		found := false
		for _, in := range ins {
			found = found || strings.Contains(in.Value, want)
		}
		if !found {
			t.Errorf("no input holds %q", want)
		}
	}
	if _, err := decode([]byte(`[{"name":"x","hex":"zz"}]`), ""); err == nil {
		t.Error("bad hex accepted")
	}
	if !HasControl("a\nb") || !HasControl("a\u2028") || HasControl("a b'$(x)") {
		t.Error("HasControl is wrong")
	}
}
