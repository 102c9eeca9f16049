package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// panicky panics on histories longer than one op, as a checker bug would.
type panicky struct{}

func (panicky) Name() string { return "panicky" }
func (panicky) Check(_ context.Context, h []history.Op, _ check.Env) check.Result {
	if len(h) > 2 {
		panic("index out of range")
	}
	return check.Result{Checker: "panicky", Valid: check.Valid, Summary: "fine"}
}

// A checker that panics on one file costs that file's answer only, and the
// exit code says it was faultline's fault: never 2, an honest unknown.
func TestCheckerPanicIsInternalError(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.jsonl")
	long := filepath.Join(dir, "long.jsonl")
	op := `{"index":%d,"time":%d,"process":0,"type":"%s","f":"read","value":null}` + "\n"
	write := func(path string, n int) {
		var b strings.Builder
		for i := range n {
			typ := "invoke"
			if i%2 == 1 {
				typ = "ok"
			}
			b.WriteString(strings.NewReplacer("%d", "0", "%s", typ).Replace(op))
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(short, 2)
	write(long, 4)
	var outs []FileOutcome
	for _, f := range []string{short, long} {
		outs = append(outs, CheckFile(context.Background(), panicky{}, f, history.JSONL, CheckOptions{}))
	}
	if outs[0].Valid != "valid" {
		t.Errorf("short: %s %s", outs[0].Valid, outs[0].Summary)
	}
	if outs[1].Valid != InternalError || !strings.Contains(outs[1].Summary, "index out of range") {
		t.Errorf("long: %s %s", outs[1].Valid, outs[1].Summary)
	}
	if code := ExitCode([]string{outs[0].Valid, outs[1].Valid}); code != exitInternal {
		t.Errorf("exit %d, want %d", code, exitInternal)
	}
}

func TestExitCode(t *testing.T) {
	cases := []struct {
		results []string
		want    int
	}{
		{nil, exitOK},
		{[]string{"valid", "valid"}, exitOK},
		{[]string{"valid", "unknown"}, exitUnknown},
		{[]string{"unknown", "rejected"}, exitRejected},
		{[]string{"rejected", InternalError}, exitInternal},
		{[]string{InternalError, "invalid"}, exitFail},
		{[]string{"error", "valid"}, exitRejected},
	}
	for _, c := range cases {
		if got := ExitCode(c.results); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.results, got, c.want)
		}
	}
}
