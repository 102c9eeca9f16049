// Package dialect is the one definition of faultline's Starlark dialect:
// the interpreter loads scripts with it and the plan compiler checks what it
// writes with it, so a compiled scenario that parses here also loads.
package dialect

import "go.starlark.net/syntax"

// Options are the language options of every faultline script: sets, while
// loops, recursion and top-level control flow are allowed (the step budget
// bounds runaway scripts); global reassignment stays off so modules stay
// declarative.
var Options = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, Recursion: true}

// Check parses src (named file in errors) and returns the first syntax
// error, which names the file, line and column.
func Check(file, src string) error {
	_, err := Options.Parse(file, src, 0)
	return err
}
