package history

import "fmt"

// OpError is input a checker cannot use, at one op: a completion with no
// invocation, a value written twice where values must be unique. Index is
// the op's Index, so a caller holding the File can name the line
// (File.LineOf).
type OpError struct {
	Index int64
	err   error
}

// OpErrorf returns an *OpError at the op with the given index; format and
// args are fmt.Errorf's (%w wraps).
func OpErrorf(index int64, format string, args ...any) error {
	return &OpError{Index: index, err: fmt.Errorf(format, args...)}
}

func (e *OpError) Error() string { return e.err.Error() }

func (e *OpError) Unwrap() error { return e.err }
