// Package testhist builds and inspects histories for tests: Jepsen log and
// EDN lines read through the same readers the CLI uses, the invariants every
// recorded history keeps, and the compact form table tests compare.
package testhist

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// JepsenLog reads Jepsen log op lines such as "0 :invoke :read nil".
func JepsenLog(t testing.TB, lines ...string) []history.Op {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("INFO  jepsen.util - " + l + "\n")
	}
	return read(t, b.String(), history.JepsenLog, len(lines))
}

// EDN reads EDN op maps, one per line (for ops with a :key).
func EDN(t testing.TB, lines ...string) []history.Op {
	t.Helper()
	return read(t, strings.Join(lines, "\n"), history.EDN, len(lines))
}

func read(t testing.TB, text string, f history.Format, want int) []history.Op {
	t.Helper()
	file, err := history.Read(strings.NewReader(text), t.Name(), f)
	if err != nil {
		t.Fatalf("test history: %v", err)
	}
	if len(file.Ops) != want {
		t.Fatalf("test history: read %d ops from %d lines", len(file.Ops), want)
	}
	return file.Ops
}

// WellFormed fails t unless ops keep what every recorded history must:
// times never go back, each process has at most one op in flight, every
// invocation completes with ok/fail/info of the same f, and a client process
// never runs again after an info.
func WellFormed(t testing.TB, ops []history.Op) {
	t.Helper()
	inflight := map[int]history.Op{}
	crashed := map[int]bool{}
	var last int64
	for i, op := range ops {
		if op.Time < last {
			t.Fatalf("op %d: time %d goes back from %d", i, op.Time, last)
		}
		last = op.Time
		switch op.Type {
		case history.Invoke:
			if _, busy := inflight[op.Process]; busy {
				t.Fatalf("op %d: process %d invoked while busy", i, op.Process)
			}
			if crashed[op.Process] {
				t.Fatalf("op %d: crashed process %d reused", i, op.Process)
			}
			if op.Process != history.NemesisProcess && op.Process < 0 {
				t.Fatalf("op %d: bad process %d", i, op.Process)
			}
			inflight[op.Process] = op
		case history.OK, history.Fail, history.Info:
			inv, ok := inflight[op.Process]
			if !ok {
				t.Fatalf("op %d: completion of process %d with nothing in flight", i, op.Process)
			}
			if inv.F != op.F {
				t.Fatalf("op %d: completion f %q for invocation f %q", i, op.F, inv.F)
			}
			delete(inflight, op.Process)
			if op.Type == history.Info && op.Process != history.NemesisProcess {
				crashed[op.Process] = true
			}
		default:
			t.Fatalf("op %d: recorded type %q", i, op.Type)
		}
	}
	if len(inflight) > 0 {
		t.Fatalf("%d invocations never completed", len(inflight))
	}
}

// Brief renders invocations as "ms:process:f" (process "n" for the
// nemesis), the form generator table tests compare.
func Brief(ops []history.Op) string {
	var parts []string
	for _, op := range ops {
		if op.Type != history.Invoke {
			continue
		}
		p := fmt.Sprint(op.Process)
		if op.Process == history.NemesisProcess {
			p = "n"
		}
		ms := float64(op.Time) / float64(time.Millisecond)
		parts = append(parts, fmt.Sprintf("%g:%s:%s", ms, p, op.F))
	}
	return strings.Join(parts, " ")
}
