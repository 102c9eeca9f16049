package verdict

import (
	"strings"
	"testing"
)

// BenchmarkDecide measures one full decision with all 24 audits; it runs once
// per scenario, so this is a sanity bound rather than a hot path.
func BenchmarkDecide(b *testing.B) {
	e := hardening()
	b.ReportAllocs()
	for b.Loop() {
		_ = Decide(e)
	}
}

// BenchmarkMatchLogLine measures the per-line cost of the red flag #7 grep
// over a typical clean log line, the common case.
func BenchmarkMatchLogLine(b *testing.B) {
	line := []byte("2026-07-01T12:00:00.123Z INFO raft: node n2 became follower at term 7, leader n1 " + strings.Repeat("k=v ", 10))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := MatchLogLine(line); ok {
			b.Fatal("clean line matched")
		}
	}
}
