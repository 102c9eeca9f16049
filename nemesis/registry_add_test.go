package nemesis

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
)

// A new fault is one file: this one leaves a marker file on its victims
// (touch-file) and removes it (untouch-file), reading back each time
// whether the file is there. Registering it is all the Worker, schedules
// (Cycle), fault windows, replay's reduction units and the final heal need
// to know of it.
func init() {
	register(Fault{
		Name: "touch_file", Inject: "touch-file", End: "untouch-file",
		Landing: "the marker file read back present after inject, absent after the end",
		Validate: func(v any) error {
			m, _ := v.(map[string]any)
			file, _ := m["path"].(string)
			return checkFillPath(file)
		},
		inject: touchStep("touch"),
		end:    touchStep("untouch"),
	})
}

const touchScript = `if [ "$1" = touch ]; then touch -- "$2"; else rm -f -- "$2"; fi
if [ -e "$2" ]; then echo present; else echo absent; fi
`

// touchStep touches or removes the marker on the targets; it landed when
// the read-back shows the file present (touch) or absent (untouch).
func touchStep(mode string) step {
	return func(w *Worker, ctx context.Context, v any) (outcome, error) {
		m, _ := v.(map[string]any)
		file, _ := m["path"].(string)
		targets, err := w.targets(ctx, mode+"-file", m["nodes"])
		if err != nil {
			return outcome{value: v}, err
		}
		want := map[string]string{"touch": "present", "untouch": "absent"}[mode]
		landed := newVerdict()
		ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
			out, err := runScript(ctx, r, mode+" "+file, touchScript, mode, file)
			if got := strings.TrimSpace(out); err != nil || got != want {
				landed.fail()
			}
			return map[string]any{"read_back": strings.TrimSpace(out)}, err
		})
		return outcome{value: map[string]any{"nodes": strs(targets), "path": file}, evidence: ev, landed: landed.ok() && err == nil, applied: true}, err
	}
}

// TestAddFaultInOneFile: the fault registered above is scheduled, injected,
// verified and ended like the built-in ones, on a node that is this host.
func TestAddFaultInOneFile(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	v := map[string]any{"nodes": "all", "path": marker}
	p, err := Cycle("touch_file", v, Timing{Start: time.Second, Hold: 2 * time.Second, Interval: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := scheduleOf(t, p, 5*time.Second).fs, []string{"touch-file", "untouch-file", "heal"}; !slices.Equal(got, want) {
		t.Errorf("schedule %v, want %v", got, want)
	}
	if _, err := Cycle("touch_file", map[string]any{"path": "relative"}, DefaultTiming()); err == nil {
		t.Errorf("Validate: a relative marker path must be refused")
	}
	if end, ok := EndOf("touch-file"); !ok || end != "untouch-file" {
		t.Errorf("EndOf(touch-file) = %q, %v", end, ok)
	}

	pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "127.0.0.1"}}, control.LocalDialer())
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(Options{Pool: pool, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var ops []history.Op
	for i, f := range []string{"touch-file", "untouch-file"} {
		inv := history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Value: v, Time: int64(2 * i)}
		c := w.Invoke(ctx, inv)
		c.Process, c.F, c.Time = history.NemesisProcess, f, int64(2*i+1)
		if c.Type != history.OK || c.Extra["landed"] != true {
			t.Fatalf("%s: %+v", f, c)
		}
		if _, err := os.Stat(marker); (err == nil) != (f == "touch-file") {
			t.Errorf("after %s: stat %v", f, err)
		}
		ops = append(ops, inv, c)
	}
	ws := FaultWindows(ops)
	if len(ws) != 1 || ws[0].Fault != "touch-file" || !ws[0].Landed || !ws[0].Proven || ws[0].End != 2 {
		t.Errorf("windows %+v: want one proven touch-file window ended by untouch-file", ws)
	}
}
