package mutate

import (
	"context"
	"testing"

	"github.com/faultline/faultline/builtins/check"
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
