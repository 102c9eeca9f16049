package star

import (
	"errors"
	"fmt"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/client/errkind"
)

// ErrorValue is a failed request returned as a value instead of raised
// (raise_errors = False), since a script cannot catch an error. Every
// protocol module's error value reads the same: ok False, error_kind
// "not-sent" | "unknown" | "refused" (errkind), error the message, and
// op_type the completion type that kind calls for ("fail" or "info").
// It is falsy, so `if not r:` catches it.
type ErrorValue struct {
	Kind    errkind.ErrorKind
	Message string
}

// NewError returns the error value of kind k with the message of err.
func NewError(k errkind.ErrorKind, err error) *ErrorValue {
	return &ErrorValue{Kind: k, Message: err.Error()}
}

var _ starlark.HasAttrs = (*ErrorValue)(nil)

// String renders error("not-sent", "message").
func (e *ErrorValue) String() string { return fmt.Sprintf("error(%q, %q)", string(e.Kind), e.Message) }

// Type is "error".
func (e *ErrorValue) Type() string { return "error" }

// Freeze does nothing: an ErrorValue is immutable.
func (e *ErrorValue) Freeze() {}

// Truth is false.
func (e *ErrorValue) Truth() starlark.Bool { return starlark.False }

// Hash fails: errors are not dict keys.
func (e *ErrorValue) Hash() (uint32, error) { return 0, errors.New("unhashable: error") }

// Attr returns ok, error_kind, error or op_type.
func (e *ErrorValue) Attr(name string) (starlark.Value, error) {
	return ErrorAttr(e.Kind, e.Message, name), nil
}

// AttrNames lists the attributes.
func (e *ErrorValue) AttrNames() []string { return ErrorAttrNames() }

// ErrorAttr is the shared attributes of an error value of kind k with
// message msg (nil for another name), for modules whose error type carries
// more (redis.error).
func ErrorAttr(k errkind.ErrorKind, msg, name string) starlark.Value {
	switch name {
	case "ok":
		return starlark.False
	case "error_kind":
		return starlark.String(k)
	case "error":
		return starlark.String(msg)
	case "op_type":
		return starlark.String(k.OpType())
	}
	return nil
}

// ErrorAttrNames lists the shared attributes of error values.
func ErrorAttrNames() []string { return []string{"error", "error_kind", "ok", "op_type"} }

// IsErrorBuiltin returns the builtin name(v) (net.is_error, say): whether v
// is an error value of any protocol module.
func IsErrorBuiltin(name string) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &v); err != nil {
			return nil, err
		}
		_, ok := v.(interface{ ErrorKind() errkind.ErrorKind })
		return starlark.Bool(ok), nil
	})
}

// ErrorKind reports e's kind; it marks e as an error value for is_error.
func (e *ErrorValue) ErrorKind() errkind.ErrorKind { return e.Kind }

func init() {
	DocumentType(TypeDoc{Name: "error", Receiver: "e",
		Summary: "A failed request returned as a value, because the call was given raise_errors = False (Starlark cannot catch an error).",
		From:    "net.dial() and net.conn's methods, sql's exec, query, begin and commit, with raise_errors = False (redis.error reads the same)",
		Doc:     "Falsy; net.is_error(v) or redis.is_error(v) tells it from a result. Every protocol module classifies a failure the same way (package client/errkind).",
		Fields: []Field{
			{Name: "ok", Doc: "False"},
			{Name: "error_kind", Doc: `"not-sent" (nothing reached the system: record fail), "unknown" (sent, then the connection failed or timed out: record info) or "refused" (the system answered with an error: record fail)`},
			{Name: "error", Doc: "the message: the call, the address and what failed"},
			{Name: "op_type", Doc: `"fail" or "info": the completion type error_kind calls for`},
		}})
}
