package interp

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"
)

// Params are the values `faultline run -p key=value` gives a script, read
// by param(name, default) while the script loads.
type Params map[string]string

// ParseParams parses -p flags, each KEY=VALUE. A key must be a name a
// script can spell (letters, digits, _, -, .); a key given twice is an
// error, since which one wins would be a guess.
func ParseParams(flags []string) (Params, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	p := Params{}
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-p %q: want KEY=VALUE", f)
		}
		if !paramName(k) {
			return nil, fmt.Errorf("-p %q: key %q may hold only letters, digits, _, - and .", f, k)
		}
		if old, dup := p[k]; dup {
			return nil, fmt.Errorf("-p %s is given twice (%s=%s and %s=%s)", k, k, old, k, v)
		}
		p[k] = v
	}
	return p, nil
}

func paramName(s string) bool {
	for _, r := range s {
		if r != '_' && r != '-' && r != '.' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// Flags spells p as -p flags, sorted by key, for a printed command.
func (p Params) Flags() []string {
	keys := slices.Sorted(maps.Keys(p))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + p[k]
	}
	return out
}

// ParamError is a -p value the script could not use, or a -p key the
// script never read: the command line's mistake, not the script's.
type ParamError struct{ Msg string }

func (e *ParamError) Error() string { return e.Msg }

// paramState is what param() reads from and records into while a script
// loads.
type paramState struct {
	given Params
	read  map[string]bool
	bad   *ParamError // a value param() could not convert, kept so Load reports it as the flag's fault
}

const paramsKey = "faultline.params"

// paramBuiltin is param(name, default = None): the value of -p name=VALUE,
// converted to the type of default (int, float, bool, duration string or
// string), or default when the command line gives none.
func paramBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var def starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "default?", &def); err != nil {
		return nil, err
	}
	st, _ := thread.Local(paramsKey).(*paramState)
	if st == nil {
		return nil, fmt.Errorf("param(%q): parameters are read while the script loads; read it at top level and keep the value", name)
	}
	st.read[name] = true
	raw, given := st.given[name]
	if !given {
		return def, nil
	}
	v, err := convertParam(raw, def)
	if err != nil {
		st.bad = &ParamError{Msg: fmt.Sprintf("-p %s=%s: %v", name, raw, err)}
		return nil, st.bad
	}
	return v, nil
}

// convertParam reads raw as def's type.
func convertParam(raw string, def starlark.Value) (starlark.Value, error) {
	switch d := def.(type) {
	case starlark.NoneType, starlark.String:
		return starlark.String(raw), nil
	case starlark.Int:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("not an integer, as the script's default %s is", d)
		}
		return starlark.MakeInt64(n), nil
	case starlark.Float:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return nil, fmt.Errorf("not a number, as the script's default %s is", d)
		}
		return starlark.Float(f), nil
	case starlark.Bool:
		t, err := strconv.ParseBool(raw)
		if err != nil {
			return nil, fmt.Errorf("not true or false, as the script's default %s is", d)
		}
		return starlark.Bool(t), nil
	}
	return nil, fmt.Errorf("the script's default is a %s; param() converts to int, float, bool or string only", def.Type())
}

// unreadParams is the error for -p keys the script never read: a typo, or
// a parameter of another script, would otherwise run the test the user
// did not ask for without a word.
func (st *paramState) unreadParams() error {
	var unread []string
	for k := range st.given {
		if !st.read[k] {
			unread = append(unread, k)
		}
	}
	if len(unread) == 0 {
		return nil
	}
	slices.Sort(unread)
	reads := slices.Sorted(maps.Keys(st.read))
	have := "it reads none"
	if len(reads) > 0 {
		have = "it reads: " + strings.Join(reads, ", ")
	}
	return &ParamError{Msg: fmt.Sprintf("-p %s: the script never reads %s with param() (%s)",
		strings.Join(unread, ", -p "), plural(len(unread), "this parameter", "these parameters"), have)}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Overrides are the command line's knobs over a scenario's own settings,
// Jepsen's --time-limit and --concurrency: recorded in the schedule, so a
// replay or reduction runs what the original ran.
type Overrides struct {
	// TimeLimit, when positive, replaces the workload duration of every
	// tier's budget.
	TimeLimit time.Duration `json:"time_limit_ns,omitempty"`
	// Concurrency, when set, replaces the scenario's concurrency ("5",
	// "3n").
	Concurrency string `json:"concurrency,omitempty"`
}

// overridesRecorded is s's overrides for the schedule header; nil when none.
func (s *Scenario) overridesRecorded() *Overrides {
	if s.overrides.IsZero() {
		return nil
	}
	o := s.overrides
	return &o
}

// IsZero reports whether o overrides nothing.
func (o Overrides) IsZero() bool { return o.TimeLimit <= 0 && o.Concurrency == "" }

// WithOverrides returns a copy of s that runs with o applied; s is not
// changed (a script's scenarios are shared by its runs).
func (s *Scenario) WithOverrides(o Overrides) *Scenario {
	if o.IsZero() {
		return s
	}
	c := *s
	c.overrides = o
	if o.Concurrency != "" {
		c.Concurrency = o.Concurrency
	}
	return &c
}
