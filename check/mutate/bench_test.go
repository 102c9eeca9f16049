package mutate

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// BenchmarkAudit audits a 10k-op register history with the linearizability
// checker and reports the time of one plain check and per mutant (derivation
// and check), measured in the same run.
func BenchmarkAudit(b *testing.B) {
	h := genRegister(10_000, 1)
	c := linearizable(b, "register")
	ctx := context.Background()
	var plain, audit float64
	mutants := 0
	for b.Loop() {
		t0 := b.Elapsed()
		if r := c.Check(ctx, h, check.Env{}); r.Valid != check.Valid {
			b.Fatalf("generated history is %s: %s", r.Valid, r.Summary)
		}
		t1 := b.Elapsed()
		rep := Audit(ctx, c, h, Options{Seed: 1, Parallel: 1})
		t2 := b.Elapsed()
		if rep.Caught != rep.Checked || rep.Checked == 0 {
			b.Fatalf("%s", rep)
		}
		plain += float64(t1 - t0)
		// The audit re-runs the baseline check; count only the mutants.
		audit += float64(t2-t1) - float64(t1-t0)
		mutants += rep.Checked
	}
	b.ReportMetric(plain/float64(b.N)/1e6, "ms/plain-check")
	b.ReportMetric(audit/float64(mutants)/1e6, "ms/mutant")
}

// BenchmarkMutants measures deriving mutants alone from a 10k-op history.
func BenchmarkMutants(b *testing.B) {
	h := genRegister(10_000, 1)
	for b.Loop() {
		if len(Mutants(h, 1, DefaultMaxPerKind)) == 0 {
			b.Fatal("no mutants")
		}
	}
}

// BenchmarkAuditClaims audits a 10k-op keyed history under no-lost-ack, an
// SLO per window and fairness by key at once: each oracle gets only its own
// mutants, derived from the options it declares.
func BenchmarkAuditClaims(b *testing.B) {
	h := genKeyed(10_000, 8)
	c := check.Compose(check.NoLostAck(check.NoLostAckOptions{}),
		must(b)(check.SLO(check.SLOOptions{P99: time.Second, Window: 10 * time.Millisecond})),
		must(b)(check.Fairness(check.FairnessOptions{MinThroughput: 1})))
	ctx := context.Background()
	for b.Loop() {
		rep := Audit(ctx, c, h, Options{Seed: 1, Parallel: 1})
		if rep.Checked == 0 || rep.Caught != rep.Checked || len(rep.Unfit) > 0 {
			b.Fatalf("%s", rep)
		}
	}
}

// genKeyed is a sequential history of about n ops writing and reading keys
// k0..k(keys-1), one op per microsecond, ending with a dump of every key's
// last value.
func genKeyed(n, keys int) []history.Op {
	var ops []history.Op
	last := map[string]any{}
	mk := func(typ history.Type, f string, k, val any) {
		ops = append(ops, history.Op{Index: int64(len(ops)), Time: int64(len(ops)) * 1000, Process: len(ops) / 2 % 5, Type: typ, F: f, Key: k, Value: val})
	}
	for i := 0; len(ops) < n; i++ {
		k := "k" + strconv.Itoa(i%keys)
		if i%3 == 2 {
			mk(history.Invoke, "read", k, nil)
			mk(history.OK, "read", k, last[k])
			continue
		}
		mk(history.Invoke, "write", k, int64(i))
		mk(history.OK, "write", k, int64(i))
		last[k] = int64(i)
	}
	mk(history.Invoke, "dump", nil, nil)
	mk(history.OK, "dump", nil, last)
	return ops
}
