package check

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/history"
)

// writeSkew is two committed list-append transactions that each miss the
// other's append: G2-item, allowed by snapshot isolation only.
func writeSkew() []history.Op {
	k := func(s string) history.Keyword { return history.Keyword(s) }
	t1 := []any{[]any{k("r"), k("x"), []any{}}, []any{k("append"), k("y"), int64(1)}}
	t2 := []any{[]any{k("r"), k("y"), []any{}}, []any{k("append"), k("x"), int64(1)}}
	ops := []history.Op{
		{Process: 0, Type: history.Invoke, F: "txn", Value: t1},
		{Process: 1, Type: history.Invoke, F: "txn", Value: t2},
		{Process: 0, Type: history.OK, F: "txn", Value: t1},
		{Process: 1, Type: history.OK, F: "txn", Value: t2},
	}
	for i := range ops {
		ops[i].Index, ops[i].Time = int64(i), int64(i)
	}
	return ops
}

func TestTransactional(t *testing.T) {
	cases := []struct {
		models []string
		want   Validity
	}{
		{[]string{"serializable"}, Invalid},
		{[]string{"snapshot-isolation"}, Valid},
		{nil, Invalid},
	}
	for _, c := range cases {
		chk, err := Transactional(TransactionalOptions{Workload: "list-append", ConsistencyModels: c.models})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		res := chk.Check(context.Background(), writeSkew(), Env{OutDir: dir})
		if res.Valid != c.want {
			t.Errorf("%v: %s (%s)", c.models, res.Valid, res.Summary)
		}
		if res.Consumed.Ops != 2 || res.Consumed.Keys != 2 {
			t.Errorf("%v: consumed %+v", c.models, res.Consumed)
		}
		if res.Valid == Invalid {
			if len(res.Artifacts) == 0 {
				t.Fatalf("%v: no artifacts written", c.models)
			}
			for _, a := range res.Artifacts {
				if _, err := os.Stat(filepath.Join(dir, a)); err != nil {
					t.Errorf("artifact %s: %v", a, err)
				}
			}
		}
	}
}

func TestTransactionalRejectsUnknownNames(t *testing.T) {
	if _, err := Transactional(TransactionalOptions{Workload: "queue"}); err == nil {
		t.Error("unknown workload accepted")
	}
	if _, err := Transactional(TransactionalOptions{Workload: "list-append", ConsistencyModels: []string{"nope"}}); err == nil {
		t.Error("unknown consistency model accepted")
	}
}

func TestTransactionalMalformedIsUnknownNotValid(t *testing.T) {
	chk, _ := Transactional(TransactionalOptions{Workload: "list-append"})
	ops := []history.Op{{Process: 0, Type: history.Invoke, F: "txn", Value: "garbage"},
		{Index: 1, Time: 1, Process: 0, Type: history.OK, F: "txn", Value: "garbage"}}
	if res := chk.Check(context.Background(), ops, Env{}); res.Valid != Unknown {
		t.Fatalf("malformed txn values gave %s: %s", res.Valid, res.Summary)
	}
}
