package plans

import (
	"path/filepath"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	src := readFile(b, filepath.Join("testdata", "etcd-register.md"))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Parse("etcd-register.md", src)
	}
}

func BenchmarkLint(b *testing.B) {
	p, _ := Parse("etcd-register.md", readFile(b, filepath.Join("testdata", "etcd-register.md")))
	b.ReportAllocs()
	for b.Loop() {
		Lint(p)
	}
}

func BenchmarkClassifyOracle(b *testing.B) {
	const oracle = "per-key linearizability against a cas-register model (Porcupine), plus no-lost-ack: " +
		"every acknowledged write is present in a final linearizable read of its key"
	b.ReportAllocs()
	for b.Loop() {
		ClassifyOracle(oracle)
	}
}
