package client_test

import (
	"testing"

	"github.com/faultline/faultline/internal/integration"
)

// TestPostgres runs the client against a private, real PostgreSQL server
// (started once; it takes seconds). Whole scenarios against one, through the
// stdlib's recipes, are tested in star/client.
func TestPostgres(t *testing.T) {
	dsn := integration.StartPostgres(t)
	t.Run("worker", func(t *testing.T) { testWorker(t, dsn) })
}
