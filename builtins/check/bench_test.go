package check

import (
	"context"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/faultline/faultline/history"
)

// BenchmarkCorpusCheck runs our checker over the whole etcd corpus, parsed
// once up front: pairing, conversion, search and result all count.
func BenchmarkCorpusCheck(b *testing.B) {
	cases := loadCorpus(b, "porcupine-etcd")
	c := mustLinearizable(b, "cas-register", nil)
	b.ResetTimer()
	for b.Loop() {
		for _, cc := range cases {
			if res := c.Check(context.Background(), cc.ops, Env{}); res.Valid != cc.want {
				b.Fatalf("%s: got %s, want %s", cc.file, res.Valid, cc.want)
			}
		}
	}
}

// BenchmarkCorpusPorcupineDirect is the baseline for BenchmarkCorpusCheck:
// porcupine.CheckOperations on the same operations, converted beforehand,
// with the cas-register model a porcupine user would write by hand.
func BenchmarkCorpusPorcupineDirect(b *testing.B) {
	cases := loadCorpus(b, "porcupine-etcd")
	s := mustLinearizable(b, "cas-register", nil).(*linearizable).s
	ops := make([][]porcupine.Operation, len(cases))
	for i, cc := range cases {
		p, err := s.prepare(cc.ops)
		if err != nil || len(p.parts) != 1 {
			b.Fatalf("%s: %v (%d partitions)", cc.file, err, len(p.parts))
		}
		ops[i] = p.parts[0].ops
	}
	b.ResetTimer()
	for b.Loop() {
		for i, cc := range cases {
			if ok := porcupine.CheckOperations(directCASModel, ops[i]); ok != (cc.want == Valid) {
				b.Fatalf("%s: linearizable=%v, want %s", cc.file, ok, cc.want)
			}
		}
	}
}

// directCASModel is a plain porcupine cas-register over our converted ops: no
// hashing, no cancellation, porcupine's default equality.
var directCASModel = porcupine.Model{
	Init: func() any { return nil },
	Step: func(state, in, out any) (bool, any) {
		i, o := in.(*input), out.(*output)
		switch i.kind {
		case opRead:
			return o.unknown || history.Equal(state, o.value), state
		case opWrite:
			return true, i.arg
		case opCAS:
			if history.Equal(state, i.arg) {
				return true, i.to
			}
			return o.unknown, state
		}
		return false, state
	},
}
