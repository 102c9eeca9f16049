// Package nemesis is the Starlark "nemesis" module: builtins that build
// nemesis packages (package nemesis at the top level) from scenario
// arguments. It registers itself with package star; the faults themselves,
// their schedules and their heal are plain Go in the domain package.
package nemesis

import (
	"errors"
	"fmt"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/star"
	stargen "github.com/faultline/faultline/star/gen"
)

func init() { star.Register("nemesis", Module) }

// Module is the Starlark "nemesis" module. Each builder returns a nemesis
// package: a generator of fault cycles (wait interval, inject, hold, heal)
// and a final generator that heals everything, both for the nemesis thread.
//
//	nemesis.partition(spec="majority", interval="10s", hold="10s", start=interval)
//	nemesis.loss(nodes="one", probability=0.3, interval=, hold=)
//	nemesis.kill(nodes="one", pattern=, command=[argv], restart="10s" (= hold), pidfile="", logfile="", ready=[argv], interval=, hold=)
//	nemesis.pause(nodes="one", pattern=, interval=, hold=)
//	nemesis.bandwidth(nodes="one", rate="1mbit", interval=, hold=)
//	nemesis.delay(nodes="one", delay="50ms", jitter="", interval=, hold=)   fails where the kernel lacks netem
//	nemesis.clock(nodes="one", mode="bump", delta="30s", period="1s", rate=1.05, interval=, hold=)   nodes with their own kernels only
//	nemesis.netem(nodes="one", delay="", jitter="", loss=0, reorder=0, duplicate=0, corrupt=0, rate="", interval=, hold=)   kernels with netem only
//	nemesis.fill_disk(nodes="one", path=, size="100M", interval=, hold=)
//	nemesis.truncate_file(nodes="one", path=, size=0, start=, interval=, repeat=)   no heal: the damage stays
//	nemesis.bitflip_file(nodes="one", path=, offset=None, bit=0, start=, interval=, repeat=)
//	nemesis.compose([pkg, ...])   every package's faults at their own times (they may overlap), one final heal
//	nemesis.heal()                a generator of one heal op
//	nemesis.fault(name, start, stop=None, verify=None, heal=None)   a fault written in Starlark (FaultValue);
//	                              calling it, f(nodes="one", interval=, hold=, start=, repeat=), schedules it
//
// Every cycle takes start= (the first fault; default one interval in),
// interval= (the wait after each heal), hold= (how long a fault stays) and
// repeat= (False: the fault happens once, at start). Each fault builtin is
// named as the fault is registered in package nemesis (nemesis.Lookup).
var Module = &starlarkstruct.Module{
	Name: "nemesis",
	Members: starlark.StringDict{
		"partition":     starlark.NewBuiltin("nemesis.partition", partitionBuiltin),
		"loss":          starlark.NewBuiltin("nemesis.loss", lossBuiltin),
		"kill":          starlark.NewBuiltin("nemesis.kill", processBuiltin("kill")),
		"pause":         starlark.NewBuiltin("nemesis.pause", processBuiltin("pause")),
		"bandwidth":     starlark.NewBuiltin("nemesis.bandwidth", bandwidthBuiltin),
		"delay":         starlark.NewBuiltin("nemesis.delay", delayBuiltin),
		"clock":         starlark.NewBuiltin("nemesis.clock", clockBuiltin),
		"netem":         starlark.NewBuiltin("nemesis.netem", netemBuiltin),
		"fill_disk":     starlark.NewBuiltin("nemesis.fill_disk", fillDiskBuiltin),
		"truncate_file": starlark.NewBuiltin("nemesis.truncate_file", corruptBuiltin("truncate_file")),
		"bitflip_file":  starlark.NewBuiltin("nemesis.bitflip_file", corruptBuiltin("bitflip_file")),
		"compose":       starlark.NewBuiltin("nemesis.compose", composeBuiltin),
		"heal":          starlark.NewBuiltin("nemesis.heal", healBuiltin),
		"fault":         starlark.NewBuiltin("nemesis.fault", faultBuiltin),
	},
}

// Value is a nemesis package as a Starlark value (type "nemesis").
type Value struct{ pkg *nemesis.Package }

// NewValue wraps a package for a script.
func NewValue(p *nemesis.Package) *Value { return &Value{pkg: p} }

// Package returns the package v holds.
func (v *Value) Package() *nemesis.Package { return v.pkg }

// String implements starlark.Value.
func (v *Value) String() string { return "<nemesis " + v.pkg.Name() + ">" }

// Type implements starlark.Value.
func (v *Value) Type() string { return "nemesis" }

// Freeze implements starlark.Value; a package is immutable.
func (v *Value) Freeze() {}

// Truth implements starlark.Value.
func (v *Value) Truth() starlark.Bool { return starlark.True }

// Hash implements starlark.Value; packages are not hashable.
func (v *Value) Hash() (uint32, error) { return 0, errors.New("unhashable type: nemesis") }

// FromStarlark accepts a nemesis package, or any generator (whose final is
// then a single heal).
func FromStarlark(v starlark.Value) (*nemesis.Package, error) {
	if p, ok := v.(*Value); ok {
		return p.pkg, nil
	}
	g, err := stargen.FromStarlark(v)
	if err != nil {
		return nil, fmt.Errorf("nemesis: want nemesis.partition(...) or another nemesis package or generator: %w", err)
	}
	return nemesis.Custom(g), nil
}

// timing is a cycle's timing arguments as Starlark unpacks them.
type timing struct {
	start, interval, hold star.Duration
	repeat                bool
}

func defaultTiming() timing {
	d := nemesis.DefaultTiming()
	return timing{start: star.Duration(d.Start), interval: star.Duration(d.Interval), hold: star.Duration(d.Hold), repeat: d.Repeat}
}

// cycle builds the package of the fault named name (nemesis.Cycle).
func cycle(name string, value any, tm timing) (starlark.Value, error) {
	p, err := nemesis.Cycle(name, value, nemesis.Timing{
		Start: time.Duration(tm.start), Interval: time.Duration(tm.interval), Hold: time.Duration(tm.hold), Repeat: tm.repeat})
	if err != nil {
		return nil, err
	}
	return NewValue(p), nil
}

func partitionBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var spec starlark.Value = starlark.String("majority")
	tm := defaultTiming()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "spec?", &spec, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	switch spec.(type) {
	case starlark.String, *starlark.Dict:
	default:
		return nil, fmt.Errorf("%s: spec must be a name such as \"majority\" or a {node: [peers]} dict, got %s", b.Name(), spec.Type())
	}
	v, err := star.ToGo(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: spec: %w", b.Name(), err)
	}
	return cycle("partition", v, tm)
}

func lossBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var nodes starlark.Value = starlark.String("one")
	var prob starlark.Float
	tm := defaultTiming()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nodes?", &nodes, "probability", &prob, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	spec, err := nodesValue(b, nodes)
	if err != nil {
		return nil, err
	}
	return cycle("loss", map[string]any{"nodes": spec, "probability": float64(prob)}, tm)
}

// processBuiltin builds a kill or a pause; a kill also takes how the
// process is restarted.
func processBuiltin(fault string) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var nodes starlark.Value = starlark.String("one")
		var pattern, pidfile, logfile string
		var command *starlark.List
		var restart, ready starlark.Value = starlark.None, starlark.None
		tm := defaultTiming()
		params := []any{"pattern", &pattern, "nodes?", &nodes, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat}
		if fault == "kill" {
			params = append(params, "command?", &command, "restart?", &restart, "pidfile?", &pidfile, "logfile?", &logfile, "ready?", &ready)
		}
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, params...); err != nil {
			return nil, err
		}
		spec, err := nodesValue(b, nodes)
		if err != nil {
			return nil, err
		}
		v := map[string]any{"nodes": spec, "pattern": pattern}
		if fault == "kill" {
			// restart is how long the process stays dead (the plan's
			// "restart after 10s"); a list there is the command itself.
			switch r := restart.(type) {
			case *starlark.List:
				if command == nil {
					command = r
				}
			case starlark.NoneType:
			default:
				var d star.Duration
				if err := d.Unpack(restart); err != nil {
					return nil, fmt.Errorf("%s: restart: %w", b.Name(), err)
				}
				tm.hold = d
			}
			if command == nil {
				return nil, fmt.Errorf("%s: missing command (the argv that restarts the process, e.g. db.start)", b.Name())
			}
			argv, err := star.ToGo(command)
			if err != nil {
				return nil, fmt.Errorf("%s: command: %w", b.Name(), err)
			}
			v["restart"], v["pidfile"], v["logfile"] = argv, pidfile, logfile
			switch r := ready.(type) {
			case starlark.NoneType: // a recipe without a readiness check
			case *starlark.List:
				if v["ready"], err = star.ToGo(r); err != nil {
					return nil, fmt.Errorf("%s: ready: %w", b.Name(), err)
				}
			default:
				return nil, fmt.Errorf("%s: ready: want an argv list or None, got %s", b.Name(), ready.Type())
			}
		}
		return cycle(fault, v, tm)
	}
}

// corruptBuiltin builds a file corruption fault: injected at start (and
// every interval after, unless repeat=False), never healed.
func corruptBuiltin(fault string) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var nodes starlark.Value = starlark.String("one")
		var file string
		var size, offset, bit int
		tm := defaultTiming()
		params := []any{"path", &file, "nodes?", &nodes, "start?", &tm.start, "interval?", &tm.interval, "repeat?", &tm.repeat}
		if fault == "truncate_file" {
			params = append(params, "size?", &size)
		} else {
			params = append(params, "offset?", &offset, "bit?", &bit)
		}
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, params...); err != nil {
			return nil, err
		}
		spec, err := nodesValue(b, nodes)
		if err != nil {
			return nil, err
		}
		v := map[string]any{"nodes": spec, "path": file}
		if fault == "truncate_file" {
			v["size"] = int64(size)
		} else {
			v["offset"], v["bit"] = int64(offset), int64(bit)
		}
		return cycle(fault, v, tm)
	}
}

func composeBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var list *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nemeses", &list); err != nil {
		return nil, err
	}
	ps := make([]*nemesis.Package, 0, list.Len())
	for i := range list.Len() {
		p, err := FromStarlark(list.Index(i))
		if err != nil {
			return nil, fmt.Errorf("%s: item %d: %w", b.Name(), i, err)
		}
		ps = append(ps, p)
	}
	p, err := nemesis.Compose(ps...)
	if err != nil {
		return nil, err
	}
	return NewValue(p), nil
}

func healBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return stargen.NewValue("nemesis.heal", nemesis.Heal()), nil
}

// nodesValue converts a node spec argument to its history value.
func nodesValue(b *starlark.Builtin, nodes starlark.Value) (any, error) {
	spec, err := star.ToGo(nodes)
	if err != nil {
		return nil, fmt.Errorf("%s: nodes: %w", b.Name(), err)
	}
	return spec, nil
}

func bandwidthBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var nodes starlark.Value = starlark.String("one")
	rate := "1mbit"
	tm := defaultTiming()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nodes?", &nodes, "rate?", &rate, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	spec, err := nodesValue(b, nodes)
	if err != nil {
		return nil, err
	}
	return cycle("bandwidth", map[string]any{"nodes": spec, "rate": rate}, tm)
}

func delayBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var nodes starlark.Value = starlark.String("one")
	delay, jitter := "50ms", ""
	tm := defaultTiming()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nodes?", &nodes, "delay?", &delay, "jitter?", &jitter, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	spec, err := nodesValue(b, nodes)
	if err != nil {
		return nil, err
	}
	return cycle("delay", map[string]any{"nodes": spec, "delay": delay, "jitter": jitter}, tm)
}

// clockBuiltin is nemesis.clock: bump, strobe, skew or reset the victims'
// clocks (package nemesis, clock.go); stop-clock after hold sets them back.
func clockBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var nodes starlark.Value = starlark.String("one")
	mode, delta, period := "bump", "30s", "1s"
	rate := starlark.Float(1.05)
	tm := defaultTiming()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nodes?", &nodes, "mode?", &mode, "delta?", &delta, "period?", &period, "rate?", &rate,
		"interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	spec, err := nodesValue(b, nodes)
	if err != nil {
		return nil, err
	}
	return cycle("clock", map[string]any{"nodes": spec, "mode": mode, "delta": delta, "period": period, "rate": float64(rate)}, tm)
}

// netemBuiltin is nemesis.netem: the full netem set on the victims'
// cluster interface (package nemesis, netem.go).
func netemBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var nodes starlark.Value = starlark.String("one")
	var delay, jitter, rate string
	var loss, reorder, duplicate, corrupt starlark.Float
	tm := defaultTiming()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nodes?", &nodes, "delay?", &delay, "jitter?", &jitter, "loss?", &loss,
		"reorder?", &reorder, "duplicate?", &duplicate, "corrupt?", &corrupt, "rate?", &rate,
		"interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	spec, err := nodesValue(b, nodes)
	if err != nil {
		return nil, err
	}
	return cycle("netem", map[string]any{"nodes": spec, "delay": delay, "jitter": jitter, "loss": float64(loss), "reorder": float64(reorder),
		"duplicate": float64(duplicate), "corrupt": float64(corrupt), "rate": rate}, tm)
}

func fillDiskBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var nodes starlark.Value = starlark.String("one")
	var file, size string
	tm := defaultTiming()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &file, "size", &size, "nodes?", &nodes, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	spec, err := nodesValue(b, nodes)
	if err != nil {
		return nil, err
	}
	return cycle("fill_disk", map[string]any{"nodes": spec, "path": file, "size": size}, tm)
}
