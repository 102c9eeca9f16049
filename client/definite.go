package client

import "errors"

// definite marks an error after which an op certainly did not take effect.
type definite struct{ err error }

func (d definite) Error() string { return d.err.Error() }
func (d definite) Unwrap() error { return d.err }

// Definite marks err as a definite failure: the op it ended certainly did
// not take effect (the server refused it, or it failed before anything that
// could commit was sent). A client that sees it records the op as fail
// rather than info, which the checkers may rely on. Nil stays nil.
func Definite(err error) error {
	if err == nil || IsDefinite(err) {
		return err
	}
	return definite{err}
}

// IsDefinite reports whether err, or an error it wraps, was marked by
// Definite.
func IsDefinite(err error) bool {
	var d definite
	return errors.As(err, &d)
}
