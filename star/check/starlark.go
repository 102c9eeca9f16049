// Package check is the Starlark "check" module: one builtin per checker of
// package check, unpacking a script's arguments into the checker's plain
// options, and the "checker" value that carries the result to the
// interpreter.
package check

import (
	"fmt"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/star"
)

func init() { star.Register("check", Module) }

// Module is the Starlark "check" module: checker constructors for scenarios.
//
//	check.linearizable(model="cas-register", init=None)
//	check.stats()
//	check.transactional(workload="list-append", consistency_models=["serializable"], anomalies=["G1"], cycle_search_timeout="5s", wfr_keys=False)
//	check.compose([check.linearizable(), check.stats()])
//	check.set(), check.set_full(linearizable=False), check.counter()
//	check.bank(total=100, accounts=[0, 1], allow_negative=False)
//	check.unique_ids(), check.queue(), check.total_queue()
//	check.no_lost_ack(writes=["write", ...], final="dump")
//	check.monotonic_reads(session="", version=""), check.read_your_writes(session="")
//	check.exactly_once(key="order_id", writes=None, final="dump")
//	check.final_state(predicate, final="dump"), check.replicas(final="dump")
//	check.slo(p99="20ms", error_rate=0.01, window="10s")     # also p50, p999, min_ops, f
//	check.fairness(group="tenant", max_p99_ratio=3)          # also min_throughput, max_error_rate, repeat, max_spread, f
//	check.recovery(within="10s", after=["kill"], f=["write"]) # bounded recovery after each fault
var Module = &starlarkstruct.Module{
	Name: "check",
	Members: starlark.StringDict{
		"linearizable":     starlark.NewBuiltin("check.linearizable", starLinearizable),
		"stats":            starlark.NewBuiltin("check.stats", starStats),
		"transactional":    starlark.NewBuiltin("check.transactional", starTransactional),
		"compose":          starlark.NewBuiltin("check.compose", starCompose),
		"set":              starlark.NewBuiltin("check.set", noArgs(check.Set)),
		"set_full":         starlark.NewBuiltin("check.set_full", starSetFull),
		"counter":          starlark.NewBuiltin("check.counter", noArgs(check.Counter)),
		"bank":             starlark.NewBuiltin("check.bank", starBank),
		"unique_ids":       starlark.NewBuiltin("check.unique_ids", noArgs(check.UniqueIDs)),
		"queue":            starlark.NewBuiltin("check.queue", noArgs(check.Queue)),
		"total_queue":      starlark.NewBuiltin("check.total_queue", noArgs(check.TotalQueue)),
		"no_lost_ack":      starlark.NewBuiltin("check.no_lost_ack", starNoLostAck),
		"monotonic_reads":  starlark.NewBuiltin("check.monotonic_reads", starSession(check.MonotonicReads, true)),
		"read_your_writes": starlark.NewBuiltin("check.read_your_writes", starSession(check.ReadYourWrites, false)),
		"exactly_once":     starlark.NewBuiltin("check.exactly_once", starExactlyOnce),
		"slo":              starlark.NewBuiltin("check.slo", starSLO),
		"fairness":         starlark.NewBuiltin("check.fairness", starFairness),
		"final_state":      starlark.NewBuiltin("check.final_state", starFinalState),
		"replicas":         starlark.NewBuiltin("check.replicas", starReplicas),
		"recovery":         starlark.NewBuiltin("check.recovery", starRecovery),

		// The boundary, lock, ordering and replay oracles of spec §4.
		"boundary":           starlark.NewBuiltin("check.boundary", starBoundary),
		"mutual_exclusion":   starlark.NewBuiltin("check.mutual_exclusion", starMutex),
		"prefix_order":       starlark.NewBuiltin("check.prefix_order", starPrefixOrder),
		"replay_equivalence": starlark.NewBuiltin("check.replay_equivalence", starReplay),
	},
}

// BuiltinName is the module member that builds the checker named name (a
// check.Spec's Name): the name with "_" for "-", as scenarios and the plan
// compiler write it (check.no_lost_ack for no-lost-ack).
func BuiltinName(name string) string { return strings.ReplaceAll(name, "-", "_") }

// CheckerValue is the Starlark value (type "checker") that carries a Checker from a
// script to the Go side. It is immutable, so it is safe to share once frozen.
type CheckerValue struct{ c check.Checker }

var _ starlark.Value = CheckerValue{}

// String implements starlark.Value.
func (v CheckerValue) String() string {
	if s, ok := v.c.(fmt.Stringer); ok {
		return s.String()
	}
	return "check." + v.c.Name() + "()"
}

// Type implements starlark.Value.
func (v CheckerValue) Type() string { return "checker" }

// Freeze implements starlark.Value; a checker has no mutable state.
func (v CheckerValue) Freeze() {}

// Truth implements starlark.Value.
func (v CheckerValue) Truth() starlark.Bool { return starlark.True }

// Hash implements starlark.Value; checkers are not dict keys.
func (v CheckerValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: checker") }

// Checker returns the Go checker the value wraps.
func (v CheckerValue) Checker() check.Checker { return v.c }

// FromStarlark returns the Checker behind a Starlark value made by the check module.
func FromStarlark(v starlark.Value) (check.Checker, error) {
	cv, ok := v.(CheckerValue)
	if !ok {
		return nil, fmt.Errorf("want a checker (made by the check module), got %s", v.Type())
	}
	return cv.c, nil
}

// starLinearizable is check.linearizable(model="cas-register", init=None).
func starLinearizable(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	model := "cas-register"
	var init starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "model?", &model, "init?", &init); err != nil {
		return nil, err
	}
	iv, err := star.ToGo(init)
	if err != nil {
		return nil, fmt.Errorf("%s: init: %w", b.Name(), err)
	}
	c, err := check.Linearizable(check.LinearizableOptions{Model: model, Init: iv})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// starTransactional is check.transactional(workload, consistency_models=[],
// anomalies=[], cycle_search_timeout="", wfr_keys=False,
// sequential_keys=False, linearizable_keys=False, transaction_order={},
// init=None): Elle's options; transaction_order maps a completion's history
// index to its commit position, init (rw-register) is the initial state.
func starTransactional(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var workload, budget string
	var models, anomalies *starlark.List
	var order *starlark.Dict
	var init starlark.Value
	o := check.TransactionalOptions{}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "workload", &workload, "consistency_models?", &models,
		"anomalies?", &anomalies, "cycle_search_timeout?", &budget, "wfr_keys?", &o.WritesFollowReads,
		"sequential_keys?", &o.SequentialKeys, "linearizable_keys?", &o.LinearizableKeys,
		"transaction_order?", &order, "init?", &init); err != nil {
		return nil, err
	}
	if order != nil {
		o.TransactionOrder = map[int64]int{}
		for _, it := range order.Items() {
			idx, err1 := starlark.AsInt32(it[0])
			pos, err2 := starlark.AsInt32(it[1])
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("%s: transaction_order: want {completion index: position} of ints, got %s: %s", b.Name(), it[0], it[1])
			}
			o.TransactionOrder[int64(idx)] = pos
		}
	}
	if init != nil {
		iv, err := star.ToGo(init)
		if err != nil {
			return nil, fmt.Errorf("%s: init: %w", b.Name(), err)
		}
		o.Init, o.HasInit = iv, true
	} else {
		// A faultline run starts from a clean db (teardown, then setup), so
		// every key starts at nil (empty, for list-append) and a read of a
		// value nobody wrote is a garbage read; a script testing a store with
		// data in it says so with init= (rw-register). (faultline check,
		// reading someone else's history, follows Elle instead: without
		// --init the start is unknown.)
		o.HasInit = true
	}
	o.Workload = workload
	var err error
	if o.ConsistencyModels, err = stringList(models); err != nil {
		return nil, fmt.Errorf("%s: consistency_models: %w", b.Name(), err)
	}
	if o.Anomalies, err = stringList(anomalies); err != nil {
		return nil, fmt.Errorf("%s: anomalies: %w", b.Name(), err)
	}
	if budget != "" {
		if o.CycleSearchBudget, err = time.ParseDuration(budget); err != nil || o.CycleSearchBudget <= 0 {
			return nil, fmt.Errorf("%s: cycle_search_timeout: want a positive duration such as \"5s\", got %q", b.Name(), budget)
		}
	}
	c, err := check.Transactional(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// starStats is check.stats().
func starStats(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return CheckerValue{check.Stats()}, nil
}

// starCompose is check.compose([checker, ...]).
func starCompose(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var list starlark.Iterable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "checkers", &list); err != nil {
		return nil, err
	}
	var cs []check.Checker
	it := list.Iterate()
	defer it.Done()
	var x starlark.Value
	for i := 0; it.Next(&x); i++ {
		c, err := FromStarlark(x)
		if err != nil {
			return nil, fmt.Errorf("%s: element %d: %w", b.Name(), i, err)
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("%s: give at least one checker", b.Name())
	}
	return CheckerValue{check.Compose(cs...)}, nil
}

// builtinFunc is the signature of a Starlark builtin's implementation.
type builtinFunc = func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)

// noArgs makes the builtin for a checker constructor that takes no options.
func noArgs(mk func() check.Checker) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
			return nil, err
		}
		return CheckerValue{mk()}, nil
	}
}

// starSetFull is check.set_full(linearizable=False).
func starSetFull(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o check.SetFullOptions
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "linearizable?", &o.Linearizable); err != nil {
		return nil, err
	}
	return CheckerValue{check.SetFull(o)}, nil
}

// starBank is check.bank(total=0, accounts=None, allow_negative=False).
func starBank(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o check.BankOptions
	var accounts starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "total?", &o.Total, "accounts?", &accounts, "allow_negative?", &o.AllowNegative); err != nil {
		return nil, err
	}
	if o.Total < 0 {
		return nil, fmt.Errorf("%s: total must not be negative, got %d", b.Name(), o.Total)
	}
	if accounts != starlark.None {
		v, err := star.ToGo(accounts)
		if err != nil {
			return nil, fmt.Errorf("%s: accounts: %w", b.Name(), err)
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: accounts must be a list, got %s", b.Name(), accounts.Type())
		}
		o.Accounts = list
	}
	return CheckerValue{check.Bank(o)}, nil
}

// starNoLostAck is check.no_lost_ack(writes=DefaultWrites, final="dump").
func starNoLostAck(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o check.NoLostAckOptions
	var writes *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "writes?", &writes, "final?", &o.Final); err != nil {
		return nil, err
	}
	var err error
	if o.Writes, err = stringList(writes); err != nil {
		return nil, fmt.Errorf("%s: writes: %w", b.Name(), err)
	}
	return CheckerValue{check.NoLostAck(o)}, nil
}

// starSession makes check.monotonic_reads(session="", version="") and
// check.read_your_writes(session="").
func starSession(mk func(check.SessionOptions) check.Checker, versioned bool) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var o check.SessionOptions
		pairs := []any{"session?", &o.Session}
		if versioned {
			pairs = append(pairs, "version?", &o.Version)
		}
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
			return nil, err
		}
		return CheckerValue{mk(o)}, nil
	}
}

// stringList reads an optional list of strings.
func stringList(l *starlark.List) ([]string, error) {
	var out []string
	for i := 0; l != nil && i < l.Len(); i++ {
		s, ok := starlark.AsString(l.Index(i))
		if !ok {
			return nil, fmt.Errorf("element %d is a %s, want a string", i, l.Index(i).Type())
		}
		out = append(out, s)
	}
	return out, nil
}

// starExactlyOnce is check.exactly_once(key, writes=None, final="dump").
func starExactlyOnce(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o check.ExactlyOnceOptions
	var writes *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "key", &o.Key, "writes?", &writes, "final?", &o.Final); err != nil {
		return nil, err
	}
	var err error
	if o.Writes, err = stringList(writes); err != nil {
		return nil, fmt.Errorf("%s: writes: %w", b.Name(), err)
	}
	c, err := check.ExactlyOnce(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// number unpacks an int or a float argument as a float64.
type number float64

// Unpack implements starlark.Unpacker.
func (n *number) Unpack(v starlark.Value) error {
	f, ok := starlark.AsFloat(v)
	if !ok {
		return fmt.Errorf("want a number, got %s", v.Type())
	}
	*n = number(f)
	return nil
}

// optionalRate reads None as unset and a number as a rate.
func optionalRate(v starlark.Value) (*float64, error) {
	if v == nil || v == starlark.None {
		return nil, nil
	}
	f, ok := starlark.AsFloat(v)
	if !ok {
		return nil, fmt.Errorf("want a number or None, got %s", v.Type())
	}
	return &f, nil
}

// starSLO is check.slo(p50=, p99=, p999=, error_rate=None, window=0, min_ops=1, f=None).
func starSLO(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var p50, p99, p999, window star.Duration
	var rate starlark.Value
	var fs *starlark.List
	var o check.SLOOptions
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "p50?", &p50, "p99?", &p99, "p999?", &p999,
		"error_rate?", &rate, "window?", &window, "min_ops?", &o.MinOps, "f?", &fs); err != nil {
		return nil, err
	}
	o.P50, o.P99, o.P999, o.Window = time.Duration(p50), time.Duration(p99), time.Duration(p999), time.Duration(window)
	var err error
	if o.ErrorRate, err = optionalRate(rate); err != nil {
		return nil, fmt.Errorf("%s: error_rate: %w", b.Name(), err)
	}
	if o.F, err = stringList(fs); err != nil {
		return nil, fmt.Errorf("%s: f: %w", b.Name(), err)
	}
	c, err := check.SLO(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// starFairness is check.fairness(group="", max_p99_ratio=0, min_throughput=0,
// max_error_rate=None, repeat="", max_spread=0, f=None).
func starFairness(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o check.FairnessOptions
	var ratio, tput, spread number
	var rate starlark.Value
	var fs *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "group?", &o.Group, "max_p99_ratio?", &ratio,
		"min_throughput?", &tput, "max_error_rate?", &rate, "repeat?", &o.Repeat, "max_spread?", &spread, "f?", &fs); err != nil {
		return nil, err
	}
	o.MaxP99Ratio, o.MinThroughput, o.MaxSpread = float64(ratio), float64(tput), float64(spread)
	var err error
	if o.MaxErrorRate, err = optionalRate(rate); err != nil {
		return nil, fmt.Errorf("%s: max_error_rate: %w", b.Name(), err)
	}
	if o.F, err = stringList(fs); err != nil {
		return nil, fmt.Errorf("%s: f: %w", b.Name(), err)
	}
	c, err := check.Fairness(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// predicateSteps bounds one call of a final-state predicate, so a runaway
// script loop ends as an unknown verdict instead of a hung check.
const predicateSteps = 100_000_000

// starFinalState is check.final_state(predicate, final="dump"). The predicate
// gets the final state and returns a bool, or a (bool, reason) tuple.
func starFinalState(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Callable
	o := check.FinalStateOptions{}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "predicate", &fn, "final?", &o.Final); err != nil {
		return nil, err
	}
	print := thread.Print
	o.Description = fn.Name()
	o.Predicate = func(state any) (bool, string, error) {
		sv, err := star.FromGo(state)
		if err != nil {
			return false, "", fmt.Errorf("final state: %w", err)
		}
		th := &starlark.Thread{Name: "check.final_state", Print: print}
		th.SetMaxExecutionSteps(predicateSteps)
		out, err := starlark.Call(th, fn, starlark.Tuple{sv}, nil)
		if err != nil {
			return false, "", fmt.Errorf("%s: %w", fn.Name(), err)
		}
		return predicateResult(fn.Name(), out)
	}
	c, err := check.FinalState(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// predicateResult reads a predicate's bool or (bool, reason) answer.
func predicateResult(name string, v starlark.Value) (bool, string, error) {
	switch x := v.(type) {
	case starlark.Bool:
		return bool(x), "", nil
	case starlark.Tuple:
		if len(x) == 2 {
			ok, isBool := x[0].(starlark.Bool)
			why, isStr := starlark.AsString(x[1])
			if isBool && isStr {
				return bool(ok), why, nil
			}
		}
	}
	return false, "", fmt.Errorf("%s returned %s; want a bool or a (bool, reason) tuple", name, v.Type())
}

// starReplicas is check.replicas(final="dump").
func starReplicas(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o check.ReplicasOptions
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "final?", &o.Final); err != nil {
		return nil, err
	}
	return CheckerValue{check.Replicas(o)}, nil
}

// starRecovery is check.recovery(within, after=None, f=None).
func starRecovery(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var within star.Duration
	var after, fs *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "within", &within, "after?", &after, "f?", &fs); err != nil {
		return nil, err
	}
	o := check.RecoveryOptions{Within: time.Duration(within)}
	var err error
	if o.After, err = stringList(after); err != nil {
		return nil, fmt.Errorf("%s: after: %w", b.Name(), err)
	}
	if o.F, err = stringList(fs); err != nil {
		return nil, fmt.Errorf("%s: f: %w", b.Name(), err)
	}
	c, err := check.Recovery(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// starBoundary is check.boundary(tenant="tenant", sep="/", reads=None).
func starBoundary(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o check.BoundaryOptions
	var reads *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "tenant?", &o.Tenant, "sep?", &o.Sep, "reads?", &reads); err != nil {
		return nil, err
	}
	var err error
	if o.Reads, err = stringList(reads); err != nil {
		return nil, fmt.Errorf("%s: reads: %w", b.Name(), err)
	}
	c, err := check.Boundary(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// starMutex is check.mutual_exclusion(acquire=None, release=None, lease="0s").
func starMutex(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var acquire, release *starlark.List
	var lease star.Duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "acquire?", &acquire, "release?", &release, "lease?", &lease); err != nil {
		return nil, err
	}
	o := check.MutexOptions{Lease: time.Duration(lease)}
	var err error
	if o.Acquire, err = stringList(acquire); err != nil {
		return nil, fmt.Errorf("%s: acquire: %w", b.Name(), err)
	}
	if o.Release, err = stringList(release); err != nil {
		return nil, fmt.Errorf("%s: release: %w", b.Name(), err)
	}
	c, err := check.MutualExclusion(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// starPrefixOrder is check.prefix_order(produce=None, views=None).
func starPrefixOrder(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var produce, views *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "produce?", &produce, "views?", &views); err != nil {
		return nil, err
	}
	var o check.PrefixOrderOptions
	var err error
	if o.Produce, err = stringList(produce); err != nil {
		return nil, fmt.Errorf("%s: produce: %w", b.Name(), err)
	}
	if o.Views, err = stringList(views); err != nil {
		return nil, fmt.Errorf("%s: views: %w", b.Name(), err)
	}
	c, err := check.PrefixOrder(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// starReplay is check.replay_equivalence(replay="replay", final="dump").
func starReplay(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o check.ReplayOptions
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "replay?", &o.Replay, "final?", &o.Final); err != nil {
		return nil, err
	}
	c, err := check.ReplayEquivalence(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}
