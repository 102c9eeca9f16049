package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// The exit codes of run, check and replay (DESIGN.md, "CLI"), as ExitCode
// ranks them.
const (
	exitOK       = 0 // valid
	exitFail     = 1 // an anomaly found
	exitUnknown  = 2 // unknown
	exitRejected = 3 // input rejected
	// exitInternal is a faultline bug (a checker panicked): never 2, which
	// would read as an honest "unknown".
	exitInternal = 70
)

// InternalError is the result of an item a faultline bug stopped.
const InternalError = "internal-error"

// ExitCode maps per-item results (valid, invalid, unknown; rejected or
// error for input that could not be used; InternalError) to one exit code:
// an anomaly found (1) outranks a faultline bug (70), which outranks
// unusable input (3), which outranks unknown (2); all valid is 0.
func ExitCode(results []string) int {
	rank := map[int]int{exitOK: 0, exitUnknown: 1, exitRejected: 2, exitInternal: 3, exitFail: 4}
	code := exitOK
	for _, r := range results {
		c := exitUnknown
		switch r {
		case "valid":
			c = exitOK
		case "invalid":
			c = exitFail
		case "rejected", "error":
			c = exitRejected
		case InternalError:
			c = exitInternal
		}
		if rank[c] > rank[code] {
			code = c
		}
	}
	return code
}

// Overall names the result an exit code of ExitCode stands for.
func Overall(code int) string {
	switch code {
	case exitOK:
		return "valid"
	case exitFail:
		return "invalid"
	case exitRejected:
		return "rejected"
	case exitInternal:
		return InternalError
	}
	return "unknown"
}

// FileOutcome is one history file's result, or why it could not be checked.
type FileOutcome struct {
	File     string       `json:"file"`
	Format   string       `json:"format,omitempty"`
	Ops      int          `json:"ops"`
	Valid    string       `json:"valid"` // valid, invalid, unknown, rejected
	Summary  string       `json:"summary"`
	Result   check.Result `json:"result"`
	Rejected string       `json:"rejected,omitempty"`
	Warning  string       `json:"warning,omitempty"`
}

// CheckOptions bound a file check and say where its explanations go.
type CheckOptions struct {
	// Timeout bounds the checker's search; 0 is none.
	Timeout time.Duration
	// MemoryBudget bounds the heap a check may grow the process to, in
	// bytes; 0 is check.DefaultMemoryBudget.
	MemoryBudget uint64
	// Out, when set, gets explanations and visualizations under
	// Out/<history name>/.
	Out string
}

// CheckFiles checks files with c, as many at a time as GOMAXPROCS allows,
// and returns their outcomes in argument order. each, when set, gets every
// outcome in that order as soon as it and those before it are done.
func CheckFiles(ctx context.Context, c check.Checker, files []string, format history.Format, opts CheckOptions, each func(FileOutcome)) []FileOutcome {
	outcomes := make([]FileOutcome, len(files))
	done := make([]chan struct{}, len(files))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	go func() {
		for i := range files {
			g.Go(func() error {
				outcomes[i] = CheckFile(ctx, c, files[i], format, opts)
				close(done[i])
				return nil
			})
		}
	}()
	for i := range files {
		<-done[i]
		if each != nil {
			each(outcomes[i])
		}
	}
	_ = g.Wait()
	return outcomes
}

// CheckFile reads a recorded history (format, or detected with
// history.Auto) and checks it with c. A file that cannot be read, or that
// the checker cannot use, is "rejected" at its line; a checker that
// panics costs this file's answer (InternalError), not the caller's.
func CheckFile(ctx context.Context, c check.Checker, file string, format history.Format, opts CheckOptions) (o FileOutcome) {
	o.File = file
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("internal error: the checker panicked on this history (a bug in faultline; please report it with the file): %v", p)
			o.Valid, o.Summary, o.Result = InternalError, msg, check.Result{Valid: check.Unknown, Summary: msg}
		}
	}()
	h, err := history.ReadFile(file, format)
	if err != nil {
		o.Valid, o.Rejected, o.Summary = "rejected", err.Error(), err.Error()
		return o
	}
	o.Format, o.Ops = string(h.Format), len(h.Ops)
	if h.TruncatedTail {
		o.Warning = "the last line was incomplete (a killed run?) and was ignored"
	}
	env := check.Env{Timeout: opts.Timeout, MemoryBudget: opts.MemoryBudget}
	if opts.Out != "" {
		env.OutDir = filepath.Join(opts.Out, strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)))
		if err := os.MkdirAll(env.OutDir, 0o755); err != nil {
			o.Valid, o.Rejected, o.Summary = "rejected", err.Error(), err.Error()
			return o
		}
	}
	o.Result = check.Run(ctx, c, h.Ops, env)
	o.Valid, o.Summary = string(o.Result.Valid), o.Result.Summary
	if err := o.Result.Input; err != nil {
		// The file is not a history this checker can read: rejected (exit
		// 3) at its line, as a parse error is, not an honest "unknown".
		where := file
		var oe *history.OpError
		if errors.As(err, &oe) {
			if line := h.LineOf(oe.Index); line > 0 {
				where = fmt.Sprintf("%s:%d", file, line)
			}
		}
		o.Valid, o.Rejected = "rejected", where+": "+err.Error()
		o.Summary = o.Rejected
		return o
	}
	if env.OutDir != "" && o.Result.Explanation != "" {
		text := o.Result.Summary + "\n\n" + o.Result.Explanation + "\n"
		if err := os.WriteFile(filepath.Join(env.OutDir, "explanation.txt"), []byte(text), 0o644); err != nil {
			o.Warning = strings.TrimSpace(o.Warning + "; " + err.Error())
		}
	}
	return o
}

// WorstExitCode is the worst of several runs' exit codes, ranked as
// ExitCode ranks results (an anomaly first); a code it does not rank
// (a usage error) outranks them all.
func WorstExitCode(codes []int) int {
	rank := map[int]int{exitOK: 0, exitUnknown: 1, exitRejected: 2, exitInternal: 3, exitFail: 4}
	worst := exitOK
	for _, c := range codes {
		rc, ok := rank[c]
		if !ok {
			return c
		}
		if rc > rank[worst] {
			worst = c
		}
	}
	return worst
}
