package verdict

import "testing"

// BenchmarkDecide measures one full decision with all 24 audits; it runs once
// per scenario, so this is a sanity bound rather than a hot path.
func BenchmarkDecide(b *testing.B) {
	e := hardening()
	b.ReportAllocs()
	for b.Loop() {
		_ = Decide(e)
	}
}
