package check

import (
	"context"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// run checks h with no output directory and no timeout.
func run(t testing.TB, c check.Checker, h []history.Op) check.Result {
	t.Helper()
	return c.Check(context.Background(), h, check.Env{})
}
