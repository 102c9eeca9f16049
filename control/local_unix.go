//go:build unix

package control

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func (l *localRemote) run(ctx context.Context, line string, c Cmd, stdin []byte) (Result, error) {
	ctx, cancel := runDeadline(ctx, c)
	defer cancel()
	var stdout, stderr capBuffer
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A process group lets cancellation reach the whole pipeline, not only sh.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	start := time.Now()
	err := cmd.Run()
	res := Result{Stdout: stdout.buf, Stderr: stderr.buf, Duration: time.Since(start),
		Truncated: stdout.dropped || stderr.dropped}
	if err != nil && ctx.Err() != nil {
		return Result{Duration: res.Duration}, indeterminate(l.node, "command "+c.describe(line), context.Cause(ctx))
	}
	var xe *exec.ExitError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &xe):
		signal := ""
		if ws, ok := xe.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Exit = 128 + int(ws.Signal())
			signal = strings.TrimPrefix(unix.SignalName(ws.Signal()), "SIG")
		} else {
			res.Exit = xe.ExitCode()
		}
		return res, exitResult(l.node, line, c, res, signal)
	default:
		return res, fmt.Errorf("node %s: run %s: %w", l.node, c.describe(line), err)
	}
}
