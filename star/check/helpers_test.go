package check

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// jlog reads Jepsen log op lines such as "0 :invoke :read nil" into a history,
// through the same reader the CLI uses.
func jlog(t testing.TB, lines ...string) []history.Op {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("INFO  jepsen.util - " + l + "\n")
	}
	f, err := history.Read(strings.NewReader(b.String()), t.Name(), history.JepsenLog)
	if err != nil {
		t.Fatalf("test history: %v", err)
	}
	if len(f.Ops) != len(lines) {
		t.Fatalf("test history: read %d ops from %d lines", len(f.Ops), len(lines))
	}
	return f.Ops
}

// ednOps reads EDN op maps, one per line (for ops with a :key).
func ednOps(t testing.TB, lines ...string) []history.Op {
	t.Helper()
	f, err := history.Read(strings.NewReader(strings.Join(lines, "\n")), t.Name(), history.EDN)
	if err != nil {
		t.Fatalf("test history: %v", err)
	}
	if len(f.Ops) != len(lines) {
		t.Fatalf("test history: read %d ops from %d lines", len(f.Ops), len(lines))
	}
	return f.Ops
}

// run checks h with no output directory and no timeout.
func run(t testing.TB, c check.Checker, h []history.Op) check.Result {
	t.Helper()
	return c.Check(context.Background(), h, check.Env{})
}
