package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/mesh"
)

// Options configure a nemesis Worker.
type Options struct {
	Pool *control.Pool // the nodes faults are injected on (required)
	Seed uint64        // seeds the choice of victims
	// Primaries names the database's current primaries, for the "primaries"
	// partition and node specs; nil means the database has none.
	Primaries func(ctx context.Context) ([]string, error)
	// Scripts are the faults the run's script defined (Package.Scripts),
	// whose ops the Worker performs by calling the script's functions.
	Scripts []*ScriptFault
}

// Worker executes nemesis ops on the nodes of a pool. It implements
// gen.Worker; the interpreter runs it on the nemesis thread, so Invoke is
// never called concurrently.
type Worker struct {
	opts  Options
	rng   *rand.Rand
	nodes []string

	mu    sync.Mutex
	addrs map[string]string // node -> IPv4/IPv6 address peers see
	ctl   map[string]string // node -> controller address as that node sees it

	partition Grudge   // active partition, nil when none
	loss      []string // nodes with active loss rules
	lossProb  float64  // their drop probability
	shaped    []string // nodes with a bandwidth limit or delay
	// shapedKind is which of the two is set ("bandwidth", "delay").
	shapedKind string
	filled     []fill // fill files made
	// procTargets: nodes a kill or pause hit, by fault and pattern, for the
	// start or resume that ends it.
	procTargets map[string][]string

	// Local mode (the pool's Network is a proxy mesh): what is shaped, and
	// the mesh's counters when the current fault began.
	shaping  map[string]mesh.Shaping // node -> shaping of its inbound links
	shapedBy map[string][]string     // "loss", "delay", "bandwidth" -> targets
	meshBase map[mesh.Link]mesh.Counters

	// scripts are Options.Scripts by name; scriptTargets the victims of
	// each script fault in effect, for the stop that ends it.
	scripts       map[string]*ScriptFault
	scriptTargets map[string][]string
}

var _ gen.Worker = (*Worker)(nil)

// New returns a Worker over o.Pool.
func New(o Options) (*Worker, error) {
	if o.Pool == nil {
		return nil, errors.New("nemesis: no nodes (pass --nodes or --nodes-file)")
	}
	w := &Worker{opts: o, rng: rand.New(rand.NewPCG(o.Seed, 0xfa17)), addrs: map[string]string{}, ctl: map[string]string{}}
	for _, n := range o.Pool.Nodes() {
		w.nodes = append(w.nodes, n.Name)
	}
	w.scripts = map[string]*ScriptFault{}
	for _, f := range o.Scripts {
		w.scripts[f.Name] = f
	}
	return w, nil
}

// Close releases nothing: the pool belongs to the caller, and healing is
// the caller's job (HealAll), so a Close on timeout never races a heal.
func (w *Worker) Close() error { return nil }

// Invoke performs one nemesis op. The completion's Value holds the resolved
// targets, Extra["evidence"] what was read back from the victims and
// Extra["landed"] whether that evidence shows the fault in effect (for
// stop ops: whether it was still in effect until the heal, and
// Extra["healed"] whether the heal was read back).
func (w *Worker) Invoke(ctx context.Context, op history.Op) history.Op {
	var (
		res outcome
		err error
	)
	switch f, ok := ByOp(op.F); {
	case op.F == "heal":
		res, err = w.heal(ctx)
	case !ok:
		res, err = outcome{value: op.Value}, fmt.Errorf("nemesis: unknown fault %q", op.F)
	case f.FromScript:
		res, err = w.scriptStep(ctx, f, op.F, op.Value)
	case op.F == f.Inject:
		res, err = f.inject(w, ctx, op.Value)
	default:
		res, err = f.end(w, ctx, op.Value)
	}
	return res.op(err)
}

// outcome is what a fault step found: the resolved targets, per-node
// evidence, and the verdicts read back.
type outcome struct {
	value    any
	evidence map[string]any
	landed   bool
	healed   *bool
	// held (closing ops): the fault was still in effect, read back from the
	// victims, when its hold ended; nil for a stop op means landed says so.
	held    *bool
	applied bool // the injection may have taken effect even though err != nil
	// heldFaults (the final heal): fault -> held, for faults it stopped.
	heldFaults map[string]any
	// effect (closing ops of network faults): what the fault did to the
	// traffic of its victims during its window, summed over them: packets,
	// bytes or connections dropped, packets delayed, nanoseconds or
	// overlimits throttled. A rule no traffic hit has effect 0, so the
	// window cannot count as landed (FaultWindows judges it); nil means
	// the op reads no effect.
	effect *int64
	// effects (the final heal): fault -> effect, for faults it stopped.
	effects map[string]any
	// note says why the read-back does not prove what the op set out to
	// do (a victim verify did not show, a stop that left the fault in
	// effect), recorded as Extra["note"] so the window's reason, judged
	// from the history alone, can say it.
	note string
	// probe (closing ops of network faults): how much of effect faultline's
	// own probe traffic made, sent through the faulted links because the
	// system's own traffic had not crossed them during the hold (see
	// probe.go); nil when no probe was sent.
	probe *int64
	// probes (the final heal): fault -> probe, for faults it stopped.
	probes map[string]any
	// peerTraffic (a partition's end on the proxy mesh): how many of the
	// system's own connections crossed each cut link before and during
	// the fault (see peerTraffic), for the window's reason.
	peerTraffic string
	// peerTraffics (the final heal): fault -> peerTraffic.
	peerTraffics map[string]any
}

func (o outcome) op(err error) history.Op {
	c := history.Op{Type: history.OK, Value: o.value,
		Extra: map[string]any{"evidence": o.evidence, "landed": o.landed}}
	if o.evidence == nil {
		c.Extra["evidence"] = map[string]any{}
	}
	if o.healed != nil {
		c.Extra["healed"] = *o.healed
		held := o.landed
		if o.held != nil {
			held = *o.held
		}
		c.Extra["held"] = held
	}
	if o.heldFaults != nil {
		c.Extra["held"] = o.heldFaults
	}
	if o.effect != nil {
		c.Extra["effect"] = *o.effect
	}
	if o.effects != nil {
		c.Extra["effect"] = o.effects
	}
	if o.note != "" {
		c.Extra["note"] = o.note
	}
	if o.probe != nil {
		c.Extra["effect_probe"] = *o.probe
	}
	if len(o.probes) > 0 {
		c.Extra["effect_probe"] = o.probes
	}
	if o.peerTraffic != "" {
		c.Extra["peer_traffic"] = o.peerTraffic
	}
	if len(o.peerTraffics) > 0 {
		c.Extra["peer_traffic"] = o.peerTraffics
	}
	if err != nil {
		c.Error = err.Error()
		c.Type = history.Fail
		if o.applied {
			c.Type = history.Info // partly applied: the fault may be in effect
		}
	}
	return c
}

// eachNode runs fn on every node in targets in parallel and collects their
// evidence; errors are joined.
func (w *Worker) eachNode(ctx context.Context, targets []string, fn func(node string, r control.Remote) (any, error)) (map[string]any, error) {
	return eachNode(ctx, w.opts.Pool, targets, fn)
}

func eachNode(ctx context.Context, pool *control.Pool, targets []string, fn func(node string, r control.Remote) (any, error)) (map[string]any, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	ev := make(map[string]any, len(targets))
	for _, node := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := pool.Remote(ctx, node)
			var e any
			if err == nil {
				e, err = fn(node, r)
			}
			mu.Lock()
			defer mu.Unlock()
			if e != nil {
				ev[node] = e
			}
			if err != nil {
				errs = append(errs, err)
			}
		}()
	}
	wg.Wait()
	return ev, errors.Join(errs...)
}

// A database between leaders names no primary (an election in progress, or
// the cluster still settling after a heal), so a "primaries" fault waits a
// while for one rather than failing at once; the fault's record carries the
// time it actually landed.
var (
	primariesWait = 10 * time.Second
	primariesPoll = 250 * time.Millisecond
)

// primaries asks the database for its primaries, if it can say, asking
// again until it names one or primariesWait has passed.
func (w *Worker) primaries(ctx context.Context) ([]string, error) {
	if w.opts.Primaries == nil {
		return nil, nil
	}
	deadline := time.Now().Add(primariesWait)
	for {
		p, err := w.opts.Primaries(ctx)
		if err == nil && len(p) > 0 {
			return p, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("primaries: %w", context.Cause(ctx))
		}
		if time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("primaries (asked for %v): %w", primariesWait, err)
			}
			return nil, fmt.Errorf("primaries: the database named none in %v", primariesWait)
		}
		select {
		case <-ctx.Done():
		case <-time.After(primariesPoll):
		}
	}
}

// addr returns the address peers use for node: its host if that is an IP,
// else what the controller resolves it to.
func (w *Worker) addr(ctx context.Context, node string) (string, error) {
	w.mu.Lock()
	a, ok := w.addrs[node]
	w.mu.Unlock()
	if ok {
		return a, nil
	}
	n, _ := w.opts.Pool.Node(node)
	if ip, err := netip.ParseAddr(n.Host); err == nil {
		a = ip.Unmap().String()
	} else {
		ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", n.Host)
		if err != nil || len(ips) == 0 {
			return "", fmt.Errorf("node %s: resolve %s: %w", node, n.Host, err)
		}
		a = ips[0].Unmap().String()
	}
	w.mu.Lock()
	w.addrs[node] = a
	w.mu.Unlock()
	return a, nil
}

// controller returns the controller's address as node sees it (from the
// ssh session), so rules can exempt it.
func (w *Worker) controller(ctx context.Context, node string, r control.Remote) (string, error) {
	w.mu.Lock()
	a, ok := w.ctl[node]
	w.mu.Unlock()
	if ok {
		return a, nil
	}
	out, err := runScript(ctx, r, "find controller address", controllerScript)
	if err != nil {
		return "", err
	}
	a = strings.TrimSpace(out)
	if a != "" {
		if _, err := netip.ParseAddr(a); err != nil {
			return "", fmt.Errorf("node %s: controller address %q from SSH_CLIENT: %w", node, a, err)
		}
	}
	w.mu.Lock()
	w.ctl[node] = a
	w.mu.Unlock()
	return a, nil
}

// heal removes every fault on every node (the final generator's op). A
// network fault still open is first stopped the ordinary way, so its
// read-back (was it still in effect?) is recorded: Extra["held"] maps
// each such fault to the answer.
func (w *Worker) heal(ctx context.Context) (outcome, error) {
	held, effects, probes, peers := map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}
	stop := func(fault string, res outcome, err error) {
		if err == nil {
			held[fault] = res.landed
			if res.held != nil {
				held[fault] = *res.held
			}
			if res.effect != nil {
				effects[fault] = *res.effect
			}
			if res.probe != nil {
				probes[fault] = *res.probe
			}
			if res.peerTraffic != "" {
				peers[fault] = res.peerTraffic
			}
		}
	}
	// A network fault still open (a bandwidth limit or delay too) is read
	// back by its own end op, so its window carries its effect like one
	// its cycle stopped.
	for _, f := range Faults() {
		if f.open != nil && f.open(w) {
			res, err := f.end(w, ctx, nil)
			stop(f.Inject, res, err)
		}
	}
	// A script fault still in effect is ended by its own stop, so its
	// window records what its verify read back.
	scriptHeld, scriptErr := w.openScripts(ctx)
	for f, h := range scriptHeld {
		held[f] = h
	}
	rep, err := HealAll(ctx, w.opts.Pool)
	srep, serr := HealScripts(ctx, w.opts.Pool, w.opts.Scripts)
	for k, v := range srep {
		rep[k] = v
	}
	err = errors.Join(scriptErr, err, serr)
	w.partition, w.loss, w.shaped, w.filled = nil, nil, nil, nil
	w.shaping, w.shapedBy, w.procTargets, w.scriptTargets = nil, nil, nil, nil
	ev := map[string]any{}
	for node, removed := range rep {
		ev[node] = strs(removed)
	}
	healed := err == nil
	res := outcome{value: strs(w.nodes), evidence: ev, landed: healed, healed: &healed}
	res.heldFaults, res.effects, res.probes, res.peerTraffics = held, effects, probes, peers
	return res, err
}
