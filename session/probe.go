package session

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/probe"
	"github.com/faultline/faultline/report"
)

// probeEnvironment discovers the system's own tooling and verifies what the
// plan needs, asking the operator first when f.Ask is set; the run's nodes
// (pool, nil for none) decide what only they can tell, such as whether
// clock faults can land. The results go into the session log header.
func probeEnvironment(ctx context.Context, p *plans.Plan, compiled []plans.CompiledScenario, f Options,
	pool *control.Pool, header *report.Header, stderr io.Writer) (probe.Matrix, error) {
	wd, _ := os.Getwd()
	for _, t := range probe.Discover(wd) {
		line := fmt.Sprintf("`%s` — %s", t.Path, t.Role)
		if t.Target != "" {
			line += " (" + t.Target + ")"
		}
		header.Toolbox = append(header.Toolbox, line)
	}
	if header.Toolbox == nil {
		header.Toolbox = []string{}
	}
	opts, err := probe.ParseOptions(f.Assume, f.Skip)
	if err != nil {
		return probe.Matrix{}, &Error{Kind: Usage, Err: err}
	}
	reqs := probe.Requirements(p, probe.Uses(compiled, f.Nodes.Local))
	if f.Ask != nil {
		said, err := askInterruptibly(ctx, f.Ask, stderr, reqs)
		if err != nil && ctx.Err() != nil {
			return probe.Matrix{}, &Error{Kind: Undecided, Err: fmt.Errorf("capability questions: %w; nothing was run", err)}
		}
		if err != nil {
			return probe.Matrix{}, usage("capability questions: %w", err)
		}
		opts.Said, opts.Skip = said.Said, append(opts.Skip, said.Skip...)
	}
	if probe.FromNodes(reqs) {
		opts.Cluster = probe.ReadCluster(ctx, pool, f.Nodes.Local)
	}
	m := probe.Check(ctx, reqs, opts)
	header.Capabilities = m.Markdown()
	return m, nil
}

// askInterruptibly runs probe.Ask but gives up when ctx ends: the CLI
// catches Ctrl-C into ctx, so a read blocked on the terminal would
// otherwise keep the process waiting for an answer nobody will give.
func askInterruptibly(ctx context.Context, in io.Reader, out io.Writer, reqs []probe.Requirement) (probe.Options, error) {
	type answer struct {
		o   probe.Options
		err error
	}
	done := make(chan answer, 1)
	go func() {
		o, err := probe.Ask(in, out, reqs)
		done <- answer{o, err}
	}()
	select {
	case a := <-done:
		return a.o, a.err
	case <-ctx.Done():
		return probe.Options{}, fmt.Errorf("interrupted before the questions were answered: %w", ctx.Err())
	}
}
