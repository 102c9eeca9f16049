package star

// Conversions between Starlark values and the generic Go values of the
// history model (nil, bool, int64, float64, string, history.Keyword, []any,
// map[string]any, history.Set), and the durations builtins are given.

import (
	"fmt"
	"math"
	"sort"
	"time"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/history"
)

// ToGo converts a Starlark value to a generic Go value. Dicts must have string
// keys; tuples and lists both become []any.
func ToGo(v starlark.Value) (any, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		i, ok := v.Int64()
		if !ok {
			return nil, fmt.Errorf("integer %s does not fit in 64 bits", v)
		}
		return i, nil
	case starlark.Float:
		return float64(v), nil
	case starlark.String:
		return string(v), nil
	case *starlark.List:
		return seqToGo(v)
	case starlark.Tuple:
		return seqToGo(v)
	case *starlark.Set:
		out, err := seqToGo(v)
		if err != nil {
			return nil, err
		}
		return history.Set(out), nil
	case *starlark.Dict:
		out := make(map[string]any, v.Len())
		for _, item := range v.Items() {
			k, ok := item[0].(starlark.String)
			if !ok {
				return nil, fmt.Errorf("dict key %s is a %s; only string keys are supported", item[0], item[0].Type())
			}
			gv, err := ToGo(item[1])
			if err != nil {
				return nil, fmt.Errorf("dict key %q: %w", string(k), err)
			}
			out[string(k)] = gv
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot use a %s as a value", v.Type())
}

func seqToGo(it starlark.Iterable) ([]any, error) {
	var out []any
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for i := 0; iter.Next(&x); i++ {
		gv, err := ToGo(x)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out = append(out, gv)
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

// FromGo converts a generic Go value to a Starlark value. Keywords become
// strings; maps become dicts with sorted keys so output is deterministic.
func FromGo(v any) (starlark.Value, error) {
	switch v := v.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(v), nil
	case int:
		return starlark.MakeInt(v), nil
	case int64:
		return starlark.MakeInt64(v), nil
	case float64:
		return starlark.Float(v), nil
	case string:
		return starlark.String(v), nil
	case history.Keyword:
		return starlark.String(string(v)), nil
	case []any:
		elems := make([]starlark.Value, len(v))
		for i, e := range v {
			sv, err := FromGo(e)
			if err != nil {
				return nil, err
			}
			elems[i] = sv
		}
		return starlark.NewList(elems), nil
	case history.Set:
		s := starlark.NewSet(len(v))
		for _, e := range v {
			sv, err := FromGo(e)
			if err != nil {
				return nil, err
			}
			if err := s.Insert(sv); err != nil {
				return nil, err
			}
		}
		return s, nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := starlark.NewDict(len(v))
		for _, k := range keys {
			sv, err := FromGo(v[k])
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(k), sv); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	return nil, fmt.Errorf("cannot convert Go %T to a Starlark value", v)
}

// Duration unpacks a duration argument: a string such as "1.5s" or "200ms", or a
// number of seconds. It implements starlark.Unpacker for UnpackArgs.
type Duration time.Duration

// Unpack implements starlark.Unpacker.
func (d *Duration) Unpack(v starlark.Value) error {
	switch v := v.(type) {
	case starlark.String:
		x, err := time.ParseDuration(string(v))
		if err != nil {
			return fmt.Errorf("bad duration %q (want e.g. \"30s\", \"5m\", \"250ms\")", string(v))
		}
		if x < 0 {
			return fmt.Errorf("negative duration %q", string(v))
		}
		*d = Duration(x)
		return nil
	case starlark.Int, starlark.Float:
		f, _ := starlark.AsFloat(v)
		if f < 0 || math.IsNaN(f) || f > float64(math.MaxInt64)/1e9 {
			return fmt.Errorf("bad duration %v seconds", f)
		}
		*d = Duration(time.Duration(f * float64(time.Second)))
		return nil
	}
	return fmt.Errorf("want a duration string like \"30s\" or a number of seconds, got %s", v.Type())
}
