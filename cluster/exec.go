package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// run executes a short command and returns its stdout; a failure carries
// the command line and what it printed, since "exit status 1" alone never
// says which step went wrong.
func run(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// ipBatch runs ip commands through one `ip -batch -` process, inside netns
// when it is not "": each ip start costs milliseconds (tens on a loaded
// host), and a cluster needs several commands per node. With force, ip goes
// on past failures, as teardown wants. A failure names the batch's lines,
// since ip reports only "Command failed -:N".
func ipBatch(ctx context.Context, ip, netns string, force bool, cmds [][]string) error {
	var script bytes.Buffer
	for _, c := range cmds {
		script.WriteString(strings.Join(c, " "))
		script.WriteByte('\n')
	}
	var args []string
	if netns != "" {
		args = append(args, "-n", netns)
	}
	if force {
		args = append(args, "-force")
	}
	if _, err := run(ctx, script.Bytes(), ip, append(args, "-batch", "-")...); err != nil {
		return fmt.Errorf("%w; batch: %s", err, strings.ReplaceAll(strings.TrimSpace(script.String()), "\n", "; "))
	}
	return nil
}
