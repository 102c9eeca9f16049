package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/faultline/faultline/mesh"
)

// Local nodes (--local) share this host, so their network faults cannot be
// iptables rules or qdiscs: every link runs through faultline's proxy mesh
// (the pool's Network) and the mesh applies them. Landing evidence is read
// back the same way as on real nodes: the table in effect right after
// inject and still at heal, and the proxies' counters of what the fault did
// to traffic during its window. The counters decide: a partition of links
// no traffic used drops nothing, and its window is not proven (see Window).

// mesh returns the pool's proxy mesh, or nil for real nodes.
func (w *Worker) mesh() *mesh.Mesh {
	m, _ := w.opts.Pool.Network().(*mesh.Mesh)
	return m
}

func (w *Worker) meshPartition(ctx context.Context, m *mesh.Mesh, v any) (outcome, error) {
	if w.partition != nil {
		return outcome{value: v}, fmt.Errorf("start-partition: a partition is already active; stop it first")
	}
	g, err := w.grudgeOf(ctx, v)
	if err != nil {
		return outcome{value: v}, err
	}
	w.partition, w.meshBase = g, m.Stats()
	m.Partition(g)
	back := m.Blocked()
	ev := map[string]any{}
	for _, node := range g.victims() {
		ev[node] = map[string]any{"backend": "mesh", "blocked_from": strs(back[node])}
	}
	return outcome{value: g.Value(), evidence: ev, landed: sameGrudge(back, g), applied: true}, nil
}

// meshHealPartition reads back that the partition was still in effect,
// what it dropped per victim, then heals it and reads the table back empty.
// When the system's own traffic met none of the cut links during the hold,
// faultline probes them itself before the heal (Mesh.ProbeCut: one
// connection per cut link, each counted as held by the partition), so the
// window's effect does not depend on what the workload happened to send.
func (w *Worker) meshHealPartition(ctx context.Context, m *mesh.Mesh) (outcome, error) {
	g := w.partition
	if g == nil {
		return outcome{value: map[string]any{}}, fmt.Errorf("stop-partition: no partition is active")
	}
	held := sameGrudge(m.Blocked(), g)
	count := func(delta map[mesh.Link]mesh.Counters, node string) (bytes, conns int64) {
		for _, peer := range g[node] {
			in := delta[mesh.Link{From: peer, To: node}]
			out := delta[mesh.Link{From: node, To: peer}]
			bytes += in.BytesDropped + out.BytesReturnDropped
			conns += in.ConnsBlocked + out.ConnsBlocked
		}
		return bytes, conns
	}
	now := m.Stats()
	peers := peerTraffic(g, w.meshBase, now) // before any probe of faultline's own
	delta := statsDelta(w.meshBase, now)
	var effect int64 // bytes dropped and connections refused on the cut links
	for _, node := range g.victims() {
		b, c := count(delta, node)
		effect += b + c
	}
	var probe *int64
	var probeErr error
	if effect == 0 && held {
		// Both directions of every cut pair: a one-way cut holds the
		// connection whichever side dials.
		var sent int64
		for _, node := range g.victims() {
			for _, peer := range g[node] {
				for _, dir := range [][2]string{{node, peer}, {peer, node}} {
					n, _, err := m.ProbeCut(ctx, dir[0], dir[1])
					sent += n
					probeErr = errors.Join(probeErr, err)
				}
			}
		}
		// With no service between the cut nodes there is no link to probe
		// (nor for the system to use): the window stays unproven as idle.
		if sent > 0 || probeErr != nil {
			probe = new(int64)
			delta = statsDelta(w.meshBase, m.Stats())
		}
	}
	ev := map[string]any{}
	effect = 0
	for _, node := range g.victims() {
		bytes, conns := count(delta, node)
		e := map[string]any{"backend": "mesh", "drops": bytes + conns, "dropped_bytes": bytes, "blocked_conns": conns}
		if probe != nil {
			e["probed"] = true
		}
		ev[node] = e
		effect += bytes + conns
	}
	if probe != nil {
		// What the probe met: everything counted beyond the first read.
		*probe = effect
		if probeErr != nil {
			for _, node := range g.victims() {
				ev[node].(map[string]any)["probe_error"] = probeErr.Error()
			}
		}
	}
	m.Partition(nil)
	healed := len(m.Blocked()) == 0
	w.partition = nil
	return outcome{value: g.Value(), evidence: ev, landed: held, healed: &healed, effect: &effect, probe: probe, peerTraffic: peers}, nil
}

// shapeStep is the mesh step that starts link shaping of kind ("loss",
// "delay", "bandwidth").
func shapeStep(kind string) func(*Worker, context.Context, *mesh.Mesh, any) (outcome, error) {
	return func(w *Worker, ctx context.Context, m *mesh.Mesh, v any) (outcome, error) {
		return w.meshShape(ctx, m, kind, v)
	}
}

// unshapeStep is the mesh step that stops link shaping of kind.
func unshapeStep(kind string) func(*Worker, context.Context, *mesh.Mesh, any) (outcome, error) {
	return func(w *Worker, ctx context.Context, m *mesh.Mesh, _ any) (outcome, error) {
		return w.meshUnshape(ctx, m, kind)
	}
}

// shapeOpen says whether link shaping of kind is in effect: on the mesh,
// or as a qdisc on the nodes.
func shapeOpen(kind string) func(*Worker) bool {
	return func(w *Worker) bool {
		if w.mesh() != nil {
			_, on := w.shapedBy[kind]
			return on
		}
		return w.shaped != nil && w.shapedKind == kind
	}
}

// meshShape sets one kind of link shaping on the targets' inbound links,
// keeping any other kind already set there.
func (w *Worker) meshShape(ctx context.Context, m *mesh.Mesh, kind string, v any) (outcome, error) {
	if _, on := w.shapedBy[kind]; on {
		return outcome{value: v}, fmt.Errorf("start-%s: already active; stop it first", kind)
	}
	spec, _ := v.(map[string]any)
	targets, err := w.targets(ctx, kind, spec["nodes"])
	if err != nil {
		return outcome{value: v}, err
	}
	val := map[string]any{"nodes": strs(targets)}
	set := func(s *mesh.Shaping) {}
	switch kind {
	case "loss":
		p, err := probability(spec["probability"])
		if err != nil {
			return outcome{value: v}, err
		}
		val["probability"] = p
		set = func(s *mesh.Shaping) { s.Loss = p }
	case "delay":
		d, err1 := time.ParseDuration(str(spec["delay"]))
		j, err2 := time.ParseDuration(orZero(str(spec["jitter"])))
		if err1 != nil || err2 != nil || d <= 0 {
			return outcome{value: v}, fmt.Errorf("delay: want durations such as \"50ms\", got delay %v jitter %v", spec["delay"], spec["jitter"])
		}
		val["delay"], val["jitter"] = str(spec["delay"]), str(spec["jitter"])
		set = func(s *mesh.Shaping) { s.Latency, s.Jitter = d, j }
	case "bandwidth":
		r, err := tcRate(str(spec["rate"]))
		if err != nil {
			return outcome{value: v}, err
		}
		val["rate"] = str(spec["rate"])
		set = func(s *mesh.Shaping) { s.Bandwidth = r }
	}
	if w.shaping == nil {
		w.shaping, w.shapedBy = map[string]mesh.Shaping{}, map[string][]string{}
	}
	for _, n := range targets {
		s := w.shaping[n]
		set(&s)
		w.shaping[n] = s
		m.Shape([]string{n}, s)
	}
	w.shapedBy[kind] = targets
	w.meshBase = m.Stats()
	ev := map[string]any{}
	landed := true
	back := m.Shapes()
	for _, n := range targets {
		ev[n] = map[string]any{"backend": "mesh", "shaping": back[n].String()}
		landed = landed && back[n] == w.shaping[n]
	}
	return outcome{value: val, evidence: ev, landed: landed, applied: true}, nil
}

// meshUnshape removes one kind of shaping and reports what it did to the
// traffic into each target while it was set: connections reset (loss),
// chunks held back (delay), time spent waiting for tokens (bandwidth).
// When the system's own traffic met the shaping on no target during the
// hold, faultline first sends a probe through each target's shaped links
// (Mesh.ProbeShaped) and counts what the shaping did to it.
func (w *Worker) meshUnshape(ctx context.Context, m *mesh.Mesh, kind string) (outcome, error) {
	targets, on := w.shapedBy[kind]
	if !on {
		return outcome{value: map[string]any{}}, fmt.Errorf("stop-%s: not active", kind)
	}
	acted := func(delta map[mesh.Link]mesh.Counters, n string) int64 {
		var a int64
		for id, c := range delta {
			if id.To != n {
				continue
			}
			switch kind {
			case "loss":
				a += c.ConnsLost
			case "delay":
				a += c.Delayed
			case "bandwidth":
				a += c.ThrottledNanos
			}
		}
		return a
	}
	// Held: the shaping was still set on every target when its hold ended.
	held, before := true, m.Shapes()
	for _, n := range targets {
		held = held && before[n] == w.shaping[n]
	}
	delta := statsDelta(w.meshBase, m.Stats())
	var effect int64
	for _, n := range targets {
		effect += acted(delta, n)
	}
	var probe *int64
	probeErr := map[string]string{}
	if effect == 0 && held {
		for _, n := range targets {
			if _, err := m.ProbeShaped(ctx, n); err != nil {
				probeErr[n] = err.Error()
			}
		}
		delta = statsDelta(w.meshBase, m.Stats())
		probe = new(int64)
	}
	ev := map[string]any{}
	landed := true
	effect = 0
	for _, n := range targets {
		a := acted(delta, n)
		e := map[string]any{"backend": "mesh", "acted": a}
		if probe != nil {
			e["probed"] = true
			if msg, ok := probeErr[n]; ok {
				e["probe_error"] = msg
			}
		}
		ev[n] = e
		landed = landed && a > 0
		effect += a
		s := w.shaping[n]
		switch kind {
		case "loss":
			s.Loss = 0
		case "delay":
			s.Latency, s.Jitter = 0, 0
		case "bandwidth":
			s.Bandwidth = 0
		}
		w.shaping[n] = s
		m.Shape([]string{n}, s)
	}
	if probe != nil {
		*probe = effect // all of it came after the first read found none
	}
	delete(w.shapedBy, kind)
	back := m.Shapes()
	healed := true
	for _, n := range targets {
		healed = healed && back[n] == w.shaping[n]
	}
	return outcome{value: map[string]any{"nodes": strs(targets)}, evidence: ev, landed: landed, healed: &healed, held: &held, effect: &effect, probe: probe}, nil
}

// sameGrudge says whether the mesh's table is exactly the grudge.
func sameGrudge(table map[string][]string, g Grudge) bool {
	want := map[string][]string{}
	for node, peers := range g {
		if len(peers) > 0 {
			want[node] = slices.Sorted(slices.Values(peers))
		}
	}
	return maps.EqualFunc(table, want, slices.Equal[[]string])
}

// statsDelta is what each link's counters gained since base.
func statsDelta(base, now map[mesh.Link]mesh.Counters) map[mesh.Link]mesh.Counters {
	out := make(map[mesh.Link]mesh.Counters, len(now))
	for id, c := range now {
		b := base[id]
		out[mesh.Link{From: id.From, To: id.To}] = addCounters(out[mesh.Link{From: id.From, To: id.To}], mesh.Counters{
			BytesDropped:       c.BytesDropped - b.BytesDropped,
			BytesReturnDropped: c.BytesReturnDropped - b.BytesReturnDropped,
			ConnsBlocked:       c.ConnsBlocked - b.ConnsBlocked,
			ConnsLost:          c.ConnsLost - b.ConnsLost,
			Delayed:            c.Delayed - b.Delayed,
			ThrottledNanos:     c.ThrottledNanos - b.ThrottledNanos,
		})
	}
	return out
}

// addCounters sums the counters faults are judged by (links of several
// services between the same two endpoints count together).
func addCounters(a, b mesh.Counters) mesh.Counters {
	a.BytesDropped += b.BytesDropped
	a.BytesReturnDropped += b.BytesReturnDropped
	a.ConnsBlocked += b.ConnsBlocked
	a.ConnsLost += b.ConnsLost
	a.Delayed += b.Delayed
	a.ThrottledNanos += b.ThrottledNanos
	return a
}

var tcRateRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)([kmg]?)(bit|bps)$`)

// tcRate reads a tc rate ("1mbit", "500kbit", "2mbps": bits or bytes per
// second, SI prefixes) as bytes per second.
func tcRate(s string) (int64, error) {
	m := tcRateRe.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("bandwidth: want a tc rate such as \"1mbit\", got %q", s)
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	n *= map[string]float64{"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m[2]]
	if m[3] == "bit" {
		n /= 8
	}
	if n < 1 {
		return 0, fmt.Errorf("bandwidth: rate %q is below one byte per second", s)
	}
	return int64(n), nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func orZero(s string) string {
	if s == "" {
		return "0s"
	}
	return s
}
