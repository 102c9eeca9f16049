package stdlib_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/interp"
)

// finalDumps runs a short register scenario whose final phase is expr and
// returns the dump ops it recorded.
func finalDumps(t *testing.T, expr string) ([]history.Op, error) {
	t.Helper()
	src := `
load("@stdlib//workloads.star", "register", "final_dump")
scenario(name = "w", client = client.register(), workload = gen.stagger("1ms", register(keys = 2, ops_per_key = 5)),
         final = ` + expr + `, checker = check.stats(), budgets = {"smoke": budget(duration = "1s")})
`
	dir := t.TempDir()
	path := filepath.Join(dir, "w.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := interp.Load(context.Background(), path, interp.LoadOptions{Seed: 1})
	if err != nil {
		return nil, err
	}
	res, err := interp.Run(context.Background(), script.Scenarios[0], interp.RunOptions{Seed: 1, Dir: filepath.Join(dir, "run")})
	if err != nil {
		return nil, err
	}
	var dumps []history.Op
	for _, op := range res.Ops {
		if op.F == "dump" {
			dumps = append(dumps, op)
		}
	}
	return dumps, nil
}

// final_dump issues one dump op naming its keys (None: every key written),
// and stops at the first that succeeds.
func TestFinalDump(t *testing.T) {
	for _, tt := range []struct {
		expr string
		keys any
	}{
		{"final_dump()", nil},
		{"final_dump(keys = 3)", []any{int64(0), int64(1), int64(2)}},
		{`final_dump(keys = ["a", 7])`, []any{"a", int64(7)}},
	} {
		dumps, err := finalDumps(t, tt.expr)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		if len(dumps) != 2 || dumps[1].Type != history.OK || !history.Equal(dumps[0].Value, tt.keys) {
			t.Fatalf("%s: want one dump of %v completed ok, got %v", tt.expr, tt.keys, dumps)
		}
		state, _ := dumps[1].Value.(map[string]any)
		if tt.keys == nil && len(state) <= 2 {
			t.Errorf("%s: the dump should hold every key written, rotated ones included: %v", tt.expr, state)
		}
	}
	if _, err := finalDumps(t, `final_dump(keys = "x")`); err == nil || !strings.Contains(err.Error(), "keys must be None") {
		t.Errorf("keys = \"x\": err = %v", err)
	}
}
