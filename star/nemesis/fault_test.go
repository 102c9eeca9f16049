package nemesis

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// execFault runs src with the nemesis module on its own thread (as one
// script's load is) and returns its globals.
func execFault(t *testing.T, src string) (starlark.StringDict, error) {
	t.Helper()
	return starlark.ExecFileOptions(&syntax.FileOptions{}, &starlark.Thread{Name: "load"}, "suite.star", src,
		starlark.StringDict{"nemesis": Module})
}

const markerSrc = `
def put(nodes):
    pass
def look(nodes):
    return {}
marker = nemesis.fault("marker", start = put, stop = put, verify = look, heal = put)
scar = nemesis.fault("scar", start = put)
pkg = nemesis.compose([marker(nodes = "all", start = "1s", hold = "2s", interval = "5s"),
                       nemesis.partition(spec = "one", start = "2s", hold = "1s", interval = "5s"),
                       scar(start = "3s", interval = "10s", repeat = False)])
`

// A script fault schedules like a built-in, composes with built-ins, and
// its package carries it for the run's Worker; one with neither stop nor
// heal has no end op.
func TestFaultSchedules(t *testing.T) {
	g, err := execFault(t, markerSrc)
	if err != nil {
		t.Fatal(err)
	}
	p := g["pkg"].(*Value).Package()
	var names []string
	for _, f := range p.Scripts() {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"marker", "scar"}) {
		t.Errorf("scripts %v, want marker and scar", names)
	}
	got := schedule(t, p, 8*time.Second)
	// Due together, steps go in cycle order; scar happens once, and the
	// second marker and partition, due at 8 s, fall at the workload's end.
	want := []string{"start:marker", "start-partition", "stop:marker", "stop-partition", "inject:scar", "heal"}
	if !slices.Equal(got, want) {
		t.Errorf("schedule %v, want %v", got, want)
	}
	if got := g["marker"].String(); got != "<nemesis.fault marker>" {
		t.Errorf("String() = %q", got)
	}
}

// Scripts are scoped by their load: two scripts defining the same name
// never collide, and one script cannot define it twice; a bad argument
// names the builtin.
func TestFaultScope(t *testing.T) {
	for range 2 {
		if _, err := execFault(t, markerSrc); err != nil {
			t.Fatalf("a second script defining marker: %v", err)
		}
	}
	for src, want := range map[string]string{
		markerSrc + "nemesis.fault(\"marker\", start = put)":    "nemesis.fault: fault \"marker\" is already defined at suite.star:6:23",
		`nemesis.fault("pause", start = lambda n: None)`:        "nemesis.fault: fault \"pause\" clashes with the built-in fault nemesis.pause",
		`nemesis.fault("x", start = lambda n: None, stop = 3)`:  "nemesis.fault: stop must be a function of the nodes, or None; got int",
		`nemesis.fault("x", start = lambda n: None)(nodes = 3)`: "nodes must be a spec",
	} {
		_, err := execFault(t, src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src[max(0, len(src)-60):], err, want)
		}
	}
}

// verify may return a struct: the history gets its fields as a dict.
func TestEvidenceToGo(t *testing.T) {
	v, err := starlark.EvalOptions(&syntax.FileOptions{}, &starlark.Thread{Name: "t"}, "t.star",
		`struct(n1 = struct(pids = [3, 4], state = "T"), n2 = "gone")`,
		starlark.StringDict{"struct": starlark.NewBuiltin("struct", starlarkstruct.Make)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := evidenceToGo(v)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n1": map[string]any{"pids": []any{int64(3), int64(4)}, "state": "T"}, "n2": "gone"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("evidenceToGo = %#v, want %#v", got, want)
	}
}
