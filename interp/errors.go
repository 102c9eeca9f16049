package interp

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// ScriptError is a problem in a scenario script: where it is, what is wrong,
// and the Starlark call stack that led there. The CLI maps it to exit code 3.
type ScriptError struct {
	File      string
	Line, Col int
	Msg       string
	Backtrace string // Starlark backtrace, innermost call last ("" for syntax errors)
}

func (e *ScriptError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// scriptError converts an error from starlark-go into a ScriptError with the
// position of the innermost frame; other errors are returned unchanged.
func scriptError(err error) error {
	var se syntax.Error
	if errors.As(err, &se) {
		return &ScriptError{File: se.Pos.Filename(), Line: int(se.Pos.Line), Col: int(se.Pos.Col), Msg: se.Msg}
	}
	var rl resolve.ErrorList
	if errors.As(err, &rl) && len(rl) > 0 {
		first := rl[0]
		msg := first.Msg
		if len(rl) > 1 {
			msg += fmt.Sprintf(" (and %d more problems)", len(rl)-1)
		}
		return &ScriptError{File: first.Pos.Filename(), Line: int(first.Pos.Line), Col: int(first.Pos.Col), Msg: msg}
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		// A failing load() nests the loaded file's error: report the innermost.
		if inner := errors.Unwrap(ee); inner != nil {
			var nested *ScriptError
			if s, ok := scriptError(inner).(*ScriptError); ok && (errors.As(inner, new(*starlark.EvalError)) || errors.As(inner, new(syntax.Error)) || errors.As(inner, new(resolve.ErrorList))) {
				nested = s
				if nested.Backtrace == "" {
					nested.Backtrace = ee.Backtrace()
				}
				return nested
			}
		}
		pos := innermost(ee.CallStack)
		return &ScriptError{File: pos.Filename(), Line: int(pos.Line), Col: int(pos.Col), Msg: ee.Msg, Backtrace: ee.Backtrace()}
	}
	return err
}

// innermost returns the position of the deepest Starlark (not builtin) frame.
func innermost(stack starlark.CallStack) syntax.Position {
	for i := len(stack) - 1; i >= 0; i-- {
		if p := stack[i].Pos; p.IsValid() && !strings.HasPrefix(p.Filename(), "<") {
			return p
		}
	}
	if len(stack) > 0 {
		return stack[0].Pos
	}
	return syntax.Position{}
}
