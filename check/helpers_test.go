package check

import (
	"context"
	"testing"

	"github.com/faultline/faultline/history"
)

// mustLinearizable builds a linearizable checker or fails the test.
func mustLinearizable(t testing.TB, model string, init any) Checker {
	t.Helper()
	c, err := Linearizable(LinearizableOptions{Model: model, Init: init})
	if err != nil {
		t.Fatalf("Linearizable(%q, %v): %v", model, init, err)
	}
	return c
}

// run checks h with no output directory and no timeout.
func run(t testing.TB, c Checker, h []history.Op) Result {
	t.Helper()
	return c.Check(context.Background(), h, Env{})
}
