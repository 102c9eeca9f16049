package mutate

import (
	"bytes"
	"testing"

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
