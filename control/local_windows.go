package control

import (
	"context"
	"fmt"
	"runtime"
)

// run fails: a local node's commands are POSIX sh command lines, run in a
// process group so cancellation reaches the whole pipeline, and this
// system has neither.
func (l *localRemote) run(ctx context.Context, line string, c Cmd, stdin []byte) (Result, error) {
	return Result{}, fmt.Errorf("node %s: run %s: local nodes need a Unix host with /bin/sh (this is %s)", l.node, c.describe(line), runtime.GOOS)
}
