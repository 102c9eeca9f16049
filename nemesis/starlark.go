package nemesis

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/star"
)

// Module is the Starlark "nemesis" module. Each builder returns a nemesis
// package: a generator of fault cycles (wait interval, inject, hold, heal)
// and a final generator that heals everything, both for the nemesis thread.
//
//	nemesis.partition(spec="majority", interval="10s", hold="10s", start=interval)
//	nemesis.loss(nodes="one", probability=0.3, interval=, hold=)
//	nemesis.kill(nodes="one", pattern=, command=[argv], restart="10s" (= hold), pidfile="", logfile="", interval=, hold=)
//	nemesis.pause(nodes="one", pattern=, interval=, hold=)
//	nemesis.bandwidth(nodes="one", rate="1mbit", interval=, hold=)
//	nemesis.delay(nodes="one", delay="50ms", jitter="", interval=, hold=)   fails where the kernel lacks netem
//	nemesis.fill_disk(nodes="one", path=, size="100M", interval=, hold=)
//	nemesis.truncate_file(nodes="one", path=, size=0, start=, interval=, repeat=)   no heal: the damage stays
//	nemesis.bitflip_file(nodes="one", path=, offset=None, bit=0, start=, interval=, repeat=)
//	nemesis.compose([pkg, ...])   every package's faults at their own times (they may overlap), one final heal
//	nemesis.heal()                a generator of one heal op
//
// Every cycle takes start= (the first fault; default one interval in),
// interval= (the wait after each heal), hold= (how long a fault stays) and
// repeat= (False: the fault happens once, at start).
var Module = &starlarkstruct.Module{
	Name: "nemesis",
	Members: starlark.StringDict{
		"partition":     starlark.NewBuiltin("nemesis.partition", partitionBuiltin),
		"loss":          starlark.NewBuiltin("nemesis.loss", lossBuiltin),
		"kill":          starlark.NewBuiltin("nemesis.kill", processBuiltin("kill", "start")),
		"pause":         starlark.NewBuiltin("nemesis.pause", processBuiltin("pause", "resume")),
		"bandwidth":     starlark.NewBuiltin("nemesis.bandwidth", bandwidthBuiltin),
		"delay":         starlark.NewBuiltin("nemesis.delay", delayBuiltin),
		"fill_disk":     starlark.NewBuiltin("nemesis.fill_disk", fillDiskBuiltin),
		"truncate_file": starlark.NewBuiltin("nemesis.truncate_file", corruptBuiltin("truncate-file")),
		"bitflip_file":  starlark.NewBuiltin("nemesis.bitflip_file", corruptBuiltin("bitflip-file")),
		"compose":       starlark.NewBuiltin("nemesis.compose", composeBuiltin),
		"heal":          starlark.NewBuiltin("nemesis.heal", healBuiltin),
	},
}

// Package is a nemesis as a Starlark value (type "nemesis"): the fault
// cycles and the final healing generator.
type Package struct {
	name   string
	gen    gen.Generator
	cycles []faultCycle // the schedule of a package built from fault cycles
	final  gen.Generator
}

// Generator returns the fault cycles (nemesis ops, not yet routed).
func (p *Package) Generator() gen.Generator { return p.gen }

// Final returns the generator that heals what the cycles may leave.
func (p *Package) Final() gen.Generator { return p.final }

// String implements starlark.Value.
func (p *Package) String() string { return "<nemesis " + p.name + ">" }

// Type implements starlark.Value.
func (p *Package) Type() string { return "nemesis" }

// Freeze implements starlark.Value; a package is immutable.
func (p *Package) Freeze() {}

// Truth implements starlark.Value.
func (p *Package) Truth() starlark.Bool { return starlark.True }

// Hash implements starlark.Value; packages are not hashable.
func (p *Package) Hash() (uint32, error) { return 0, errors.New("unhashable type: nemesis") }

// FromStarlark accepts a nemesis package, or any generator (whose final is
// then a single heal).
func FromStarlark(v starlark.Value) (*Package, error) {
	if p, ok := v.(*Package); ok {
		return p, nil
	}
	g, err := gen.FromStarlark(v)
	if err != nil {
		return nil, fmt.Errorf("nemesis: want nemesis.partition(...) or another nemesis package or generator: %w", err)
	}
	return &Package{name: "custom", gen: g, final: healOp()}, nil
}

func healOp() gen.Generator {
	return gen.Op(history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: "heal"})
}

// timing is when a fault cycle acts: the first fault at start (default:
// after one interval), held for hold, then again interval after each heal.
type timing struct {
	start, interval, hold star.Duration
	repeat                bool // false: inject once, at start
}

func defaultTiming() timing {
	return timing{start: -1, interval: star.Duration(10 * time.Second), hold: star.Duration(10 * time.Second), repeat: true}
}

// cycle is one fault's package: inject at start, heal after hold, again
// interval after each heal (see timeline).
func cycle(name, start, stop string, value any, tm timing) (*Package, error) {
	if tm.interval < 0 || tm.hold <= 0 || tm.start < -1 {
		return nil, fmt.Errorf("nemesis.%s: hold must be positive, interval and start not negative", name)
	}
	if tm.start == -1 {
		tm.start = tm.interval
	}
	cycles := []faultCycle{{inject: start, heal: stop, value: value, tm: tm}}
	return &Package{name: name, gen: newTimeline(cycles), cycles: cycles, final: healOp()}, nil
}

// stopValue is what the healing op of a cycle carries: process faults need
// the same spec (start needs the restart command), network faults nothing.
func stopValue(v any) any {
	if m, ok := v.(map[string]any); ok {
		if _, ok := m["pattern"]; ok {
			return m
		}
	}
	return nil
}

func partitionBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var spec starlark.Value = starlark.String("majority")
	tm := defaultTiming()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "spec?", &spec, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	v, err := star.ToGo(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: spec: %w", b.Name(), err)
	}
	switch v := v.(type) {
	case string:
	case map[string]any:
		for node, peers := range v {
			if _, ok := peers.([]any); !ok {
				return nil, fmt.Errorf("%s: spec[%q] must be a list of nodes it drops", b.Name(), node)
			}
		}
	default:
		return nil, fmt.Errorf("%s: spec must be a name such as \"majority\" or a {node: [peers]} dict, got %s", b.Name(), spec.Type())
	}
	return cycle("partition", "start-partition", "stop-partition", v, tm)
}

func lossBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var nodes starlark.Value = starlark.String("one")
	var prob starlark.Float
	tm := defaultTiming()
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nodes?", &nodes, "probability", &prob, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	if _, err := probability(float64(prob)); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	spec, err := star.ToGo(nodes)
	if err != nil {
		return nil, fmt.Errorf("%s: nodes: %w", b.Name(), err)
	}
	return cycle("loss", "start-loss", "stop-loss", map[string]any{"nodes": spec, "probability": float64(prob)}, tm)
}

func processBuiltin(start, stop string) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var nodes starlark.Value = starlark.String("one")
		var pattern, pidfile, logfile string
		var command *starlark.List
		var restart starlark.Value = starlark.None
		tm := defaultTiming()
		params := []any{"pattern", &pattern, "nodes?", &nodes, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat}
		if start == "kill" {
			params = append(params, "command?", &command, "restart?", &restart, "pidfile?", &pidfile, "logfile?", &logfile)
		}
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, params...); err != nil {
			return nil, err
		}
		spec, err := star.ToGo(nodes)
		if err != nil {
			return nil, fmt.Errorf("%s: nodes: %w", b.Name(), err)
		}
		v := map[string]any{"nodes": spec, "pattern": pattern}
		if start == "kill" {
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
		}
		if _, err := parseProcessSpec(stop, v); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		return cycle(start, start, stop, v, tm)
	}
}

// corruptBuiltin builds a file corruption fault: injected at start (and
// every interval after, unless repeat=False), never healed.
func corruptBuiltin(f string) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var nodes starlark.Value = starlark.String("one")
		var file string
		var size, offset, bit int
		tm := defaultTiming()
		params := []any{"path", &file, "nodes?", &nodes, "start?", &tm.start, "interval?", &tm.interval, "repeat?", &tm.repeat}
		if f == "truncate-file" {
			params = append(params, "size?", &size)
		} else {
			params = append(params, "offset?", &offset, "bit?", &bit)
		}
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, params...); err != nil {
			return nil, err
		}
		if file == "" || size < 0 || offset < 0 || bit < 0 || bit > 7 {
			return nil, fmt.Errorf("%s: want a path, a size and offset not negative, a bit in 0..7", b.Name())
		}
		spec, err := star.ToGo(nodes)
		if err != nil {
			return nil, fmt.Errorf("%s: nodes: %w", b.Name(), err)
		}
		v := map[string]any{"nodes": spec, "path": file}
		if f == "truncate-file" {
			v["size"] = int64(size)
		} else {
			v["offset"], v["bit"] = int64(offset), int64(bit)
		}
		return cycle(strings.ReplaceAll(f, "-", "_"), f, "", v, tm)
	}
}

func composeBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var list *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nemeses", &list); err != nil {
		return nil, err
	}
	var (
		gens   []gen.Generator
		cycles []faultCycle
		timed  = true
	)
	for i := range list.Len() {
		p, err := FromStarlark(list.Index(i))
		if err != nil {
			return nil, fmt.Errorf("%s: item %d: %w", b.Name(), i, err)
		}
		gens = append(gens, p.gen)
		cycles = append(cycles, p.cycles...)
		timed = timed && p.cycles != nil
	}
	if len(gens) == 0 {
		return nil, fmt.Errorf("%s: no nemeses", b.Name())
	}
	if timed {
		// Every fault keeps its own times on one shared timeline.
		return &Package{name: "compose", gen: newTimeline(cycles), cycles: cycles, final: healOp()}, nil
	}
	return &Package{name: "compose", gen: gen.Mix(gens...), final: healOp()}, nil
}

func healBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return gen.NewValue("nemesis.heal", healOp()), nil
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
	if rate == "" || strings.ContainsAny(rate, " \t\n") {
		return nil, fmt.Errorf("%s: rate %q: want a tc rate such as \"1mbit\"", b.Name(), rate)
	}
	return cycle("bandwidth", "start-bandwidth", "stop-bandwidth", map[string]any{"nodes": spec, "rate": rate}, tm)
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
	if !tcTime(delay) || jitter != "" && !tcTime(jitter) {
		return nil, fmt.Errorf("%s: want times such as \"50ms\", got delay %q jitter %q", b.Name(), delay, jitter)
	}
	return cycle("delay", "start-delay", "stop-delay", map[string]any{"nodes": spec, "delay": delay, "jitter": jitter}, tm)
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
	if _, err := parseSize(size); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if err := checkFillPath(file); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return cycle("fill_disk", "fill-disk", "free-disk", map[string]any{"nodes": spec, "path": file, "size": size}, tm)
}
