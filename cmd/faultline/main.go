// Command faultline runs distributed-system test scenarios and plans against
// real or in-process systems, records everything, and checks what it found.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/faultline/faultline/session"
)

// Exit codes shared by run and check (DESIGN.md, "CLI").
const (
	exitOK       = 0  // DONE / valid
	exitFail     = 1  // FAIL / anomaly found
	exitUnknown  = 2  // INCONCLUSIVE / unknown
	exitRejected = 3  // BLOCKED / input rejected
	exitUsage    = 64 // usage error
	// exitInternal is a faultline bug (a checker panicked): never 2, which
	// would read as an honest "unknown".
	exitInternal = 70
)

// exitError carries the process exit code for an outcome that is not a crash.
type exitError struct {
	code int
	err  error // printed to stderr when non-nil
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// sessionExit is the exit code of each kind of session.Error.
var sessionExit = map[session.ErrorKind]int{session.Rejected: exitRejected, session.Usage: exitUsage, session.Undecided: exitUnknown}

// exitOf turns a session.Error into the exit its kind means; other errors
// are returned as they are.
func exitOf(err error) error {
	var se *session.Error
	if errors.As(err, &se) {
		return &exitError{code: sessionExit[se.Kind], err: se.Err}
	}
	return err
}

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func main() {
	os.Exit(execute(os.Args[1:]))
}

// execute runs the CLI with args and returns the exit code.
func execute(args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "faultline: internal error (a bug in faultline; please report it with the command): %v\n%s", p, debug.Stack())
			code = exitInternal
		}
	}()
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "faultline:", ee.err)
		}
		return ee.code
	}
	// Errors cobra raises itself (unknown command, bad flag) are usage errors.
	fmt.Fprintln(os.Stderr, "faultline:", err)
	fmt.Fprintln(os.Stderr, "Run 'faultline --help' for usage.")
	return exitUsage
}
