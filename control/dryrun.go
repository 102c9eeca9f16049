package control

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// DryRunRemote records what would run on a node and reports success without
// touching anything. Lint and plan previews use it; Cmd rendering errors
// (NUL bytes, bad env names) still fail, so a preview catches them.
type DryRunRemote struct {
	node string
	mu   sync.Mutex
	log  io.Writer
	cmds []string
}

// DryRun returns a dry-run Remote for node. Each action is appended to
// Commands and, when log is non-nil, written to log as one "node: action" line.
func DryRun(node string, log io.Writer) *DryRunRemote {
	return &DryRunRemote{node: node, log: log}
}

// Node returns the node name.
func (d *DryRunRemote) Node() string { return d.node }

// Close does nothing.
func (d *DryRunRemote) Close() error { return nil }

// Run records the rendered command line (sudo rendered as sudo -n), or the
// Cmd's Label when it has one.
func (d *DryRunRemote) Run(ctx context.Context, c Cmd) (Result, error) {
	line, err := render(c, sudoNoPrompt)
	if err != nil {
		return Result{}, fmt.Errorf("node %s: %w", d.node, err)
	}
	if c.Label != "" {
		return Result{}, d.record(ctx, c.Label)
	}
	return Result{}, d.record(ctx, "$ "+line)
}

// Upload records the copy.
func (d *DryRunRemote) Upload(ctx context.Context, local, remote string) error {
	return d.record(ctx, fmt.Sprintf("upload %s -> %s", local, remote))
}

// Download records the copy.
func (d *DryRunRemote) Download(ctx context.Context, remote, local string) error {
	return d.record(ctx, fmt.Sprintf("download %s -> %s", remote, local))
}

// Commands returns the recorded actions in order.
func (d *DryRunRemote) Commands() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.cmds...)
}

func (d *DryRunRemote) record(ctx context.Context, action string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("node %s: %w", d.node, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cmds = append(d.cmds, action)
	if d.log != nil {
		if _, err := fmt.Fprintf(d.log, "%s: %s\n", d.node, action); err != nil {
			return fmt.Errorf("dry-run log: %w", err)
		}
	}
	return nil
}
