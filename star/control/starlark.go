// Package control is the Starlark "control" module: the run's nodes as
// values whose methods act on them through package control's remotes.
package control

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/star"
)

func init() { star.Register("control", Module) }

// onNodesSteps bounds each on_nodes thread, like the interpreter's own
// script threads, so a runaway function cannot spin forever.
const onNodesSteps = 50_000_000

// Module is the Starlark "control" module:
//
//	control.nodes()            the run's nodes, as node values
//	control.node(name)         one node
//	control.on_nodes(fn)       fn(node) on every node in parallel -> {name: result}
//	control.on_nodes(nodes, fn) likewise on the given nodes (values or names)
//	control.http_get(url, timeout="1s") struct(status, body, error), from the controller
//	control.sleep(duration)    wait (recipes polling for readiness)
var Module = &starlarkstruct.Module{
	Name: "control",
	Members: starlark.StringDict{
		"nodes":    starlark.NewBuiltin("control.nodes", nodesBuiltin),
		"node":     starlark.NewBuiltin("control.node", nodeBuiltin),
		"on_nodes": starlark.NewBuiltin("control.on_nodes", onNodes),
		"http_get": starlark.NewBuiltin("control.http_get", httpGet),
		"sleep":    starlark.NewBuiltin("control.sleep", sleep),
	},
}

func nodesBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	p, err := star.Pool(thread, b.Name())
	if err != nil {
		return nil, err
	}
	nodes := p.Nodes()
	out := make([]starlark.Value, len(nodes))
	for i, n := range nodes {
		out[i] = &NodeValue{pool: p, node: n}
	}
	return starlark.NewList(out), nil
}

func nodeBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	p, err := star.Pool(thread, b.Name())
	if err != nil {
		return nil, err
	}
	return NewNodeValue(p, name)
}

// onNodes runs fn(node) on each node at once, each call on its own thread.
// Every call runs to its end even when another fails; the error then names
// each failed node. Running one function on several threads requires it to
// be frozen, so fn, the values it captures and its module's globals are
// frozen first: results must be returned, not accumulated in shared lists.
func onNodes(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var first, second starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "nodes", &first, "fn?", &second); err != nil {
		return nil, err
	}
	p, err := star.Pool(thread, b.Name())
	if err != nil {
		return nil, err
	}
	fn, list := second, first
	if second == nil {
		fn, list = first, nil
	}
	callable, ok := fn.(starlark.Callable)
	if !ok {
		return nil, fmt.Errorf("%s: fn must be callable, got %s", b.Name(), fn.Type())
	}
	targets, err := nodeList(p, list)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	freezeCallable(callable)

	ctx := star.Context(thread)
	results := make([]starlark.Value, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, nv := range targets {
		wg.Go(func() {
			results[i], errs[i] = callOn(ctx, thread, callable, nv)
		})
	}
	wg.Wait()

	out := starlark.NewDict(len(targets))
	var failed []error
	for i, nv := range targets {
		if errs[i] != nil {
			failed = append(failed, fmt.Errorf("node %s: %w", nv.node.Name, errs[i]))
			continue
		}
		if err := out.SetKey(starlark.String(nv.node.Name), results[i]); err != nil {
			return nil, err
		}
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%s: %d of %d nodes failed: %w", b.Name(), len(failed), len(targets), errors.Join(failed...))
	}
	return out, nil
}

// callOn calls fn(nv) on a new thread that shares parent's print, load and
// run context, and is cancelled when that context ends.
func callOn(ctx context.Context, parent *starlark.Thread, fn starlark.Callable, nv *NodeValue) (starlark.Value, error) {
	child := &starlark.Thread{Name: parent.Name + "/" + nv.node.Name, Print: parent.Print, Load: parent.Load}
	star.SetContext(child, ctx)
	star.SetPool(child, nv.pool)
	child.SetMaxExecutionSteps(onNodesSteps)
	stop := context.AfterFunc(ctx, func() { child.Cancel(context.Cause(ctx).Error()) })
	defer stop()
	return starlark.Call(child, fn, starlark.Tuple{nv}, nil)
}

// freezeCallable freezes fn and, for a Starlark function, its module's
// globals, which it could otherwise mutate from several threads at once.
func freezeCallable(fn starlark.Callable) {
	fn.Freeze()
	if f, ok := fn.(*starlark.Function); ok {
		for _, v := range f.Globals() {
			v.Freeze()
		}
	}
}

// nodeList resolves on_nodes' nodes argument: None for all nodes, or a list
// or tuple of node values and node names.
func nodeList(p *control.Pool, v starlark.Value) ([]*NodeValue, error) {
	if v == nil || v == starlark.None {
		var out []*NodeValue
		for _, n := range p.Nodes() {
			out = append(out, &NodeValue{pool: p, node: n})
		}
		return out, nil
	}
	var seq starlark.Indexable
	switch v := v.(type) {
	case *starlark.List:
		seq = v
	case starlark.Tuple:
		seq = v
	default:
		return nil, fmt.Errorf("nodes must be a list of nodes or node names, got %s", v.Type())
	}
	out := make([]*NodeValue, 0, seq.Len())
	seen := map[string]bool{}
	for i := 0; i < seq.Len(); i++ {
		var nv *NodeValue
		switch x := seq.Index(i).(type) {
		case *NodeValue:
			nv = x
		case starlark.String:
			v, err := NewNodeValue(p, string(x))
			if err != nil {
				return nil, err
			}
			nv = v
		default:
			return nil, fmt.Errorf("nodes[%d]: want a node or a node name, got %s", i, x.Type())
		}
		if seen[nv.node.Name] {
			return nil, fmt.Errorf("node %s listed twice", nv.node.Name)
		}
		seen[nv.node.Name] = true
		out = append(out, nv)
	}
	return out, nil
}
