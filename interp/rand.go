package interp

import (
	"fmt"
	"math/rand/v2"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/star"
)

// randModule is the seeded "rand" module. Draws come from the thread's
// generator stream, so the same root seed yields the same script choices.
var randModule = &starlarkstruct.Module{
	Name: "rand",
	Members: starlark.StringDict{
		"int":    starlark.NewBuiltin("rand.int", randInt),
		"float":  starlark.NewBuiltin("rand.float", randFloat),
		"choice": starlark.NewBuiltin("rand.choice", randChoice),
	},
}

func threadRand(thread *starlark.Thread, name string) (*rand.Rand, error) {
	r := star.Rand(thread)
	if r == nil {
		return nil, fmt.Errorf("%s: no seeded random source on this thread", name)
	}
	return r, nil
}

// randInt is rand.int(n) in [0, n) or rand.int(lo, hi) in [lo, hi).
func randInt(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a, hi int64 = 0, -1
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &a, &hi); err != nil {
		return nil, err
	}
	lo := int64(0)
	if hi == -1 {
		hi = a
	} else {
		lo = a
	}
	if hi <= lo {
		return nil, fmt.Errorf("%s: empty range [%d, %d)", b.Name(), lo, hi)
	}
	r, err := threadRand(thread, b.Name())
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt64(lo + r.Int64N(hi-lo)), nil
}

// randFloat is rand.float() in [0, 1).
func randFloat(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
		return nil, err
	}
	r, err := threadRand(thread, b.Name())
	if err != nil {
		return nil, err
	}
	return starlark.Float(r.Float64()), nil
}

// randChoice is rand.choice(seq): a uniformly chosen element.
func randChoice(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Indexable
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &seq); err != nil {
		return nil, err
	}
	if seq.Len() == 0 {
		return nil, fmt.Errorf("%s: empty sequence", b.Name())
	}
	r, err := threadRand(thread, b.Name())
	if err != nil {
		return nil, err
	}
	return seq.Index(r.IntN(seq.Len())), nil
}
