// Package session runs a test plan or a scenario script end to end, as
// `faultline run` does, and returns one typed result: probe the
// environment, run each unit under its tier's budget, gather the evidence,
// re-run what failed, audit the checker's sensitivity on what passed,
// decide each verdict, and write the session directory (findings, logs,
// metrics, artifacts and results.json, which is report.Results).
//
// It also replays and reduces a recorded session (Replay, Reduce), heals
// the nodes a killed session left (Heal), lints and compiles plans and
// scripts (LintPlan, LintScript, CompilePlan), and checks recorded history
// files (CheckFiles). It never prints to stdout: progress goes to
// the io.Writer its options name, and the caller prints the result, as
// JSON or through the result's WriteText, the text the CLI shows.
package session

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/interp"
)

// ErrorKind says what went wrong in a way a caller can act on: the CLI maps
// each kind to its exit code.
type ErrorKind int

const (
	// Rejected: the input (plan, script, session directory, nodes file)
	// cannot be used as given; the message names file:line where it can.
	Rejected ErrorKind = iota + 1
	// Usage: the options are wrong (an unknown tier, a malformed --lib or
	// --nodes, options that contradict each other).
	Usage
	// Undecided: nothing could be decided (interrupted before anything
	// ran, or no replay of a reduction ran).
	Undecided
)

// Error is a failure of a kind the caller tells apart. Errors without a
// kind (an unwritable session directory) are returned as they are.
type Error struct {
	Kind ErrorKind
	Err  error
}

// Error is the underlying error's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// rejected wraps err as a Rejected error.
func rejected(err error) error { return &Error{Kind: Rejected, Err: err} }

// usage makes a Usage error from a format, as fmt.Errorf does.
func usage(format string, args ...any) error {
	return &Error{Kind: Usage, Err: fmt.Errorf(format, args...)}
}

// ScriptRejected is the Rejected error of a script that does not load,
// with its Starlark backtrace appended when it has one.
func ScriptRejected(err error) error {
	var se *interp.ScriptError
	if errors.As(err, &se) && se.Backtrace != "" {
		return rejected(fmt.Errorf("%w\n%s", err, strings.TrimRight(se.Backtrace, "\n")))
	}
	return rejected(err)
}

// Options say how to run a plan or a script. The zero value runs every
// scenario in process at the smoke tier with seed 0, into test-sessions/.
type Options struct {
	// Path is the plan (.md) or script (.star) to run.
	Path string
	// Tier is the budget tier (interp.Tiers); "" is smoke.
	Tier string
	// Seed is the root seed: the same seed reproduces a simulated run.
	Seed uint64
	// Out is the session root; "" is test-sessions.
	Out string
	// Libs are the load roots as NAME=DIR (interp.ParseLibs); they are
	// repeated in the reproduce and replay commands the session prints.
	Libs []string
	// Params are -p KEY=VALUE flags, read by the script's param(); they
	// are recorded in each run's schedule and repeated in the reproduce
	// command.
	Params []string
	// TimeLimit, when positive, replaces every scenario's workload
	// duration (--time-limit); Concurrency, when set, its concurrency
	// (--concurrency, "5" or "3n").
	TimeLimit   time.Duration
	Concurrency string
	// LeaveDBRunning skips every scenario's db teardown after its run
	// (--leave-db-running); Result.DBLeftRunning names what was left.
	LeaveDBRunning bool
	// Realtime drives in-process clients in wall-clock time.
	Realtime bool
	// CheckTimeout bounds each checker's search; 0 is two minutes.
	CheckTimeout time.Duration
	// Scenarios, when set, runs only these scenarios (a plan: IDs, an arm
	// ID or its scenario's).
	Scenarios []string
	// JUnit, when set, is a file to write the verdicts to as JUnit XML.
	JUnit string
	// Reruns is how many times a failed unit is run again to tell
	// FAIL-reproducible from FAIL-nondeterministic.
	Reruns int
	// Nodes says which nodes to run on; Pool, when set, is used instead.
	Nodes Nodes
	// Pool is a pool the caller made and releases; nil opens Nodes'.
	Pool *control.Pool
	// Progress gets diagnostics, the live status line and the scenarios'
	// print() output; nil discards them.
	Progress io.Writer
	// ScriptPrint, when set, gets a script's load-time print() output
	// instead of Progress (the CLI discards it for -o json).
	ScriptPrint io.Writer
	// Status draws one live status line on Progress (a terminal).
	Status bool

	// Suite is a plan's suite file; "" resolves it as PlanSuite does.
	Suite string
	// Author also writes each compiled scenario to its Target test file.
	Author bool
	// Skip names capabilities or scenario IDs the probe skips.
	Skip []string
	// Assume holds CAPABILITY=present|absent, trusted without probing.
	Assume []string
	// Ask, when set, is where the operator answers the capability
	// questions the probe asks on Progress; nil asks nothing.
	Ask io.Reader
}

// overrides are the command line's knobs over every scenario's settings.
func (o Options) overrides() interp.Overrides {
	return interp.Overrides{TimeLimit: o.TimeLimit, Concurrency: o.Concurrency}
}

// loadError classifies an error of interp.Load: a -p flag the script
// could not use is the command line's (usage), anything else the
// script's (rejected).
func loadError(err error) error {
	var pe *interp.ParamError
	if errors.As(err, &pe) {
		return usage("run: %w", pe)
	}
	return ScriptRejected(err)
}

// checkOverrides rejects --time-limit and --concurrency values that no
// scenario could run with, before anything starts.
func checkOverrides(o Options) error {
	if o.TimeLimit < 0 {
		return usage("run: --time-limit %s: want a positive duration", o.TimeLimit)
	}
	if o.LeaveDBRunning && o.Nodes.Local {
		return usage("run: --leave-db-running needs real nodes: --local nodes and their daemons are removed when the run ends")
	}
	if o.Concurrency != "" {
		if _, err := gen.ParseConcurrency(o.Concurrency, 1); err != nil {
			return usage("run: --concurrency %q: %v", o.Concurrency, err)
		}
	}
	return nil
}

// withDefaults fills what the zero value leaves unset.
func (o Options) withDefaults() Options {
	if o.Tier == "" {
		o.Tier = "smoke"
	}
	if o.Out == "" {
		o.Out = "test-sessions"
	}
	if o.CheckTimeout == 0 {
		o.CheckTimeout = 2 * time.Minute
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

// RandomSeed is a fresh root seed, short enough to type.
func RandomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) % 1_000_000_000
}
