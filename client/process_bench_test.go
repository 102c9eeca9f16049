package client

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/integration"
)

// BenchmarkClientExecVsProcess measures ops per second of the same trivial
// op done by a Python client two ways on one local node: client.exec (a
// python3 started per op) and client.process (one python3 for all ops).
// Compare the two ops/s figures of one run:
//
//	go test ./client -run '^$' -bench ClientExecVsProcess
func BenchmarkClientExecVsProcess(b *testing.B) {
	py := integration.NeedCommand(b, "python3")
	pool, sup, err := control.NewLocalPool(b.TempDir(), []string{"n1"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sup.Close(); _ = pool.Close() })
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	run := func(b *testing.B, c PoolStarter) {
		sess, err := c.StartPool(context.Background(), 1, pool, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		defer sess.Close()
		w, err := sess.Open(0, 0, "n1")
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		op := history.Op{Type: history.Invoke, F: "write", Value: int64(1), Node: "n1"}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if got := w.Invoke(context.Background(), op); got.Type != history.OK {
				b.Fatalf("op %d: %+v", i, got)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	}
	b.Run("exec", func(b *testing.B) { run(b, &Exec{Argv: []string{py, abs("execop.py")}}) })
	b.Run("process", func(b *testing.B) { run(b, &Process{Argv: []string{py, abs("fakeproc.py")}}) })
}
