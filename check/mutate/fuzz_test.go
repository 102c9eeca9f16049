package mutate

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// FuzzMutants derives mutants from any history the readers accept: it must
// not panic, must not edit its input, and every mutant must be as long as the
// input and pair whenever the input does.
func FuzzMutants(f *testing.F) {
	f.Add([]byte(`{:process 0, :type :invoke, :f :write, :value 1}
{:process 0, :type :ok, :f :write, :value 1}
{:process 1, :type :invoke, :f :write, :value 2}
{:process 1, :type :ok, :f :write, :value 2}
{:process 2, :type :invoke, :f :read, :value nil}
{:process 2, :type :ok, :f :read, :value 2}`))
	f.Add([]byte(`{:process 0, :type :invoke, :f :add, :value 1}
{:process 0, :type :ok, :f :add, :value 1}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 1, :type :ok, :f :read, :value [1 1.0 "x"]}`))
	f.Add([]byte(`{:process 0, :type :invoke, :f :txn, :value [[:append :x 1] [:r :x nil]]}
{:process 0, :type :ok, :f :txn, :value [[:append :x 1] [:r :x [1]]]}
{:process 1, :type :invoke, :f :txn, :value [[:r :x nil] [:r :x nil]]}
{:process 1, :type :ok, :f :txn, :value [[:r :x [1]] [:r :x [1 2]]]}`))
	f.Add([]byte(`{:process 0, :type :invoke, :f :add, :value 9223372036854775807}
{:process 0, :type :ok, :f :add, :value 9223372036854775807}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 1, :type :ok, :f :read, :value -9223372036854775808}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		hf, err := history.Read(bytes.NewReader(data), "fuzz", history.Auto)
		if err != nil {
			return
		}
		h := hf.Ops
		before := clone(h)
		_, pairErr := history.Pair(h)
		for _, m := range Mutants(h, 1, 2) {
			if len(m.Ops) != len(h) {
				t.Fatalf("%s mutant has %d ops, input %d", m.Kind, len(m.Ops), len(h))
			}
			if _, err := history.Pair(m.Ops); err != nil && pairErr == nil {
				t.Fatalf("%s mutant does not pair: %v", m.Kind, err)
			}
		}
		unchanged(t, before, h)
	})
}

// FuzzClaimMutants derives the mutants that need an oracle's options (no
// lost ack, SLO, fairness, recovery, bank, sessions, exactly-once,
// replicas, mutual exclusion, prefix order, replay, boundary) from any history the readers accept, under fixed options: no
// panic, no edit of the input, every mutant as long as the input.
func FuzzClaimMutants(f *testing.F) {
	f.Add([]byte(`{:process 0, :type :invoke, :f :write, :key :a, :value 1}
{:process 0, :type :ok, :f :write, :key :a, :value 1}
{:process :nemesis, :type :info, :f :kill, :value nil}
{:process :nemesis, :type :info, :f :kill, :value nil}
{:process 1, :type :invoke, :f :read, :key :a, :value nil, :version 1}
{:process 1, :type :ok, :f :read, :key :a, :value 1, :version 1, :node "n1"}
{:process 2, :type :invoke, :f :dump, :value nil, :node "n2"}
{:process 2, :type :ok, :f :dump, :value {:a 1, :b [1 2]}, :order_id 1}`))
	f.Add([]byte(`{:process 0, :type :invoke, :f :transfer, :value {:from 0, :to 1, :amount 2}}
{:process 0, :type :ok, :f :transfer, :value {:from 0, :to 1, :amount 2}}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 1, :type :ok, :f :read, :value {:a 9223372036854775807, :b 1.5}}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 1, :type :ok, :f :read, :value {:a 3, :b 7}}
{:process 2, :type :invoke, :f :dump, :value nil}
{:process 2, :type :ok, :f :dump, :value [{:order_id 1} 2 #{3}]}`))
	rate := 0.1
	options := []any{
		check.NoLostAckOptions{Writes: check.DefaultWrites, Final: "dump"},
		check.SLOOptions{P99: 5, ErrorRate: &rate, Window: 20, MinOps: 1},
		check.FairnessOptions{MinThroughput: 1, MaxP99Ratio: 2, MaxErrorRate: &rate},
		check.FairnessOptions{Group: "node", MaxP99Ratio: 2},
		check.RecoveryOptions{Within: 15},
		check.BankOptions{},
		check.SessionOptions{},
		check.SessionOptions{Session: "node", Version: "version"},
		check.ExactlyOnceOptions{Key: "order_id", Final: "dump"},
		check.ReplicasOptions{Final: "dump"},
		check.MutexOptions{Acquire: []string{"write"}, Release: []string{"read"}},
		check.MutexOptions{Acquire: []string{"write"}, Release: []string{"read"}, Lease: 10},
		check.PrefixOrderOptions{Produce: []string{"write"}, Views: []string{"read", "dump"}},
		check.ReplayOptions{Replay: "read", Final: "dump"},
		check.BoundaryOptions{Tenant: "node", Sep: "/", Reads: []string{"read", "dump"}},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		hf, err := history.Read(bytes.NewReader(data), "fuzz", history.Auto)
		if err != nil {
			return
		}
		h := hf.Ops
		pairs, err := history.Pair(h)
		if err != nil {
			return
		}
		before := clone(h)
		v := newView(h, pairs)
		for _, fam := range families {
			for _, o := range options {
				ms, _ := fam.derive(v, o, rand.New(rand.NewPCG(1, 2)), 2)
				for _, m := range ms {
					if len(m.Ops) != len(h) {
						t.Fatalf("%s mutant has %d ops, input %d", m.Kind, len(m.Ops), len(h))
					}
					if _, err := history.Pair(m.Ops); err != nil {
						t.Fatalf("%s mutant does not pair: %v", m.Kind, err)
					}
				}
			}
		}
		unchanged(t, before, h)
	})
}
