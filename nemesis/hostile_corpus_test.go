package nemesis

import (
	"context"
	"os/exec"
	"path"
	"strings"
	"testing"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/hostile"
)

// TestHostileCorpusFaultPaths feeds every input of the hostile corpus as a
// fill fault's path (as it is, and under a directory). A path with a
// control character, or not clean and absolute, is refused; one accepted
// becomes exactly one state record, which heal (run in a namespace of its
// own) acts on by removing that file and nothing beside it.
func TestHostileCorpusFaultPaths(t *testing.T) {
	marker := hostile.Marker(t)
	var accepted []string
	for _, in := range hostile.Inputs(t, marker) {
		for _, p := range []string{in.Value, "/run/fill/" + in.Value} {
			err := checkFillPath(p)
			if hostile.HasControl(p) && !strings.ContainsAny(p, "\u2028\u2029") && err == nil {
				t.Errorf("%s: fill path %q with a control character accepted", in.Name, p)
			}
			if err == nil && (path.Clean(p) != p || !path.IsAbs(p) || strings.Contains(p, "/../")) {
				t.Errorf("%s: fill path %q accepted", in.Name, p)
			}
			if err == nil && strings.HasPrefix(p, "/run/fill/") {
				accepted = append(accepted, p)
			}
		}
	}
	if len(accepted) < 5 {
		t.Fatalf("only %d corpus paths accepted; the heal check would prove little", len(accepted))
	}
	if !hostile.Root() {
		t.Skip("heal in a namespace of its own needs root")
	}
	// Each accepted path gets a fill file and a record; a foreign file sits
	// beside them. Heal removes exactly the recorded files.
	var setup strings.Builder
	setup.WriteString(stateLib + "mkdir -p /run/fill && echo mine >/run/fill/foreign\n")
	for _, p := range accepted {
		q := control.Quote(p)
		setup.WriteString("mkdir -p \"$(dirname " + q + ")\" && : >" + q + " && note fill " + q + "\n")
	}
	check := "cat /run/fill/foreign; find /run/fill -type f | sort"
	heal, _, _, _, after := runHealInNamespace(t, setup.String(), check)
	if after != "mine\n/run/fill/foreign" {
		t.Errorf("after heal /run/fill holds:\n%s\nwant only the foreign file (heal said:\n%s)", after, heal)
	}
	if n := strings.Count(heal, "removed /run/fill/"); n != len(accepted) {
		t.Errorf("heal removed %d fill files, want %d:\n%s", n, len(accepted), heal)
	}
}

// TestHostileCorpusKillPatterns sends signal 0 (none) to the processes
// matching each corpus input as a kill pattern, through the script and
// remote the process faults use: a pattern is one pgrep argument, never
// shell, so no payload runs.
func TestHostileCorpusKillPatterns(t *testing.T) {
	if _, err := exec.LookPath("pgrep"); err != nil {
		t.Skip("no pgrep")
	}
	marker := hostile.Marker(t)
	r := control.Local("n1")
	for _, in := range hostile.Inputs(t, marker) {
		_, err := signalProcesses(context.Background(), r, "", "0", processSpec{pattern: in.Value})
		if err != nil && !strings.ContainsRune(in.Value, 0) {
			t.Errorf("%s: pattern %q: %v", in.Name, in.Value, err)
		}
	}
}
