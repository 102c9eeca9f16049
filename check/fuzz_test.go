package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// fuzzHistory turns bytes into a well-formed cas-register history over three
// processes and a nemesis: each byte invokes or completes one op.
func fuzzHistory(data []byte) []history.Op {
	var h []history.Op
	add := func(p int, t history.Type, f string, v any) {
		h = append(h, history.Op{Index: int64(len(h)), Time: int64(len(h)), Process: p, Type: t, F: f, Value: v})
	}
	var open [3]string // f of each process's open op, "" if none
	faulty := false
	for _, b := range data {
		p, v := int(b%4), int64(b>>2%3)
		if p == 3 {
			f := "start-partition"
			if faulty {
				f = "stop-partition"
			}
			faulty = !faulty
			add(history.NemesisProcess, history.Info, f, nil)
			add(history.NemesisProcess, history.Info, f, nil)
			continue
		}
		if open[p] == "" {
			f := [...]string{"read", "write", "cas"}[b>>4%3]
			var arg any
			switch f {
			case "write":
				arg = v
			case "cas":
				arg = []any{v, (v + 1) % 3}
			}
			add(p, history.Invoke, f, arg)
			open[p] = f
			continue
		}
		t := [...]history.Type{history.OK, history.OK, history.Fail, history.Info}[b>>4%4]
		var res any
		if open[p] == "read" && t == history.OK {
			res = v
		} else {
			res = h[lastInvoke(h, p)].Value
		}
		add(p, t, open[p], res)
		open[p] = ""
	}
	return h
}

func lastInvoke(h []history.Op, p int) int {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Process == p && h[i].Type == history.Invoke {
			return i
		}
	}
	return -1
}

// FuzzLinearizable: on any well-formed history the checker never hits an
// internal error, explains every failure, and says the same thing twice. The
// timeout only keeps a fuzz worker from stalling on an exponential input.
func FuzzLinearizable(f *testing.F) {
	f.Add([]byte{0x10, 0x14, 0x01, 0x05, 0x20, 0x03, 0x00, 0x04})
	f.Add([]byte{0x11, 0x12, 0x01, 0x32, 0x00, 0x03, 0x24, 0x04, 0x03})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 40 {
			return
		}
		h := fuzzHistory(data)
		c := mustLinearizable(t, "cas-register", nil)
		env := Env{Timeout: 5 * time.Second}
		res := c.Check(context.Background(), h, env)
		if strings.HasPrefix(res.Summary, "internal error") {
			t.Fatal(res.Summary)
		}
		switch res.Valid {
		case Valid:
			if res.Consumed.Ops == 0 && !strings.Contains(res.Summary, "nothing took effect") || res.Explanation != "" {
				t.Fatalf("valid over %d ops with explanation %q", res.Consumed.Ops, res.Explanation)
			}
		case Invalid:
			if !strings.Contains(res.Explanation, "cannot be linearized") {
				t.Fatalf("unexplained failure:\n%s", res.Explanation)
			}
		case Unknown:
			if strings.Contains(res.Summary, "timed out") {
				return
			}
			if !strings.HasPrefix(res.Summary, "nothing to check") {
				t.Fatalf("unknown: %s", res.Summary)
			}
		}
		again := c.Check(context.Background(), h, env)
		if again.Valid != res.Valid || again.Summary != res.Summary || again.Explanation != res.Explanation {
			t.Fatalf("not deterministic:\n%s\n%s\nvs\n%s\n%s", res.Summary, res.Explanation, again.Summary, again.Explanation)
		}
	})
}
