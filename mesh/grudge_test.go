package mesh_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/faultline/faultline/mesh"
	"github.com/faultline/faultline/nemesis"
)

var five = []string{"n1", "n2", "n3", "n4", "n5"}

// grudges is every shape the nemesis module can ask for over five nodes,
// plus an explicit one-way map.
func grudges(t *testing.T) map[string]nemesis.Grudge {
	t.Helper()
	out := map[string]nemesis.Grudge{}
	for i, spec := range nemesis.GrudgeSpecs {
		g, err := nemesis.ComputeGrudge(spec, five, rand.New(rand.NewPCG(7, uint64(i))), []string{"n2", "n4"})
		if err != nil {
			t.Fatalf("grudge %s: %v", spec, err)
		}
		if len(g) == 0 {
			t.Fatalf("grudge %s blocks nothing", spec)
		}
		out[spec] = g
	}
	g, err := nemesis.ExplicitGrudge(five, map[string][]string{"n1": {"n2"}, "n3": {"n1", "n5"}})
	if err != nil {
		t.Fatalf("explicit grudge: %v", err)
	}
	out["explicit"] = g
	return out
}

// pairConn is a connection from a to b made before the partition.
type pairConn struct {
	from, to string
	c        *client
}

// TestGrudges partitions a mesh of five echo servers with every grudge
// shape and checks, for every ordered pair: a new connection works exactly
// when both directions are open; on a connection made before, a's bytes
// reach b exactly when a->b is open and b's reach a exactly when b->a is;
// the counters show drops and held connections on exactly those links;
// and the heal resets exactly the broken connections and restores all.
func TestGrudges(t *testing.T) {
	m := mesh.New(mesh.Options{Seed: 1})
	t.Cleanup(func() { m.Close() })
	servers := map[string]*echoServer{}
	for _, n := range five {
		servers[n] = startEcho(t, n)
		if err := m.Add(n, "echo", servers[n].addr()); err != nil {
			t.Fatalf("add %s: %v", n, err)
		}
	}
	for name, g := range grudges(t) {
		t.Run(name, func(t *testing.T) {
			m.Heal()
			conns := greetAll(t, m)
			defer func() {
				for _, pc := range conns {
					pc.c.c.Close()
				}
			}()
			before := m.Stats()
			m.Partition(g)
			if got := m.Blocked(); !reflect.DeepEqual(got, map[string][]string(g)) {
				t.Fatalf("Blocked() = %v, want %v", got, g)
			}
			probeAll(t, m, servers, conns, g, name)
			checkPartitionCounters(t, m, before, g)

			before = m.Stats()
			m.Heal()
			if got := m.Blocked(); len(got) != 0 {
				t.Fatalf("Blocked() after heal = %v", got)
			}
			checkHeal(t, m, servers, conns, g, name, before)
		})
	}
}

// greetAll opens a greeted connection for every ordered pair.
func greetAll(t *testing.T, m *mesh.Mesh) []pairConn {
	t.Helper()
	var out []pairConn
	for _, a := range five {
		for _, b := range five {
			if a == b {
				continue
			}
			c, err := greet(mustAddr(t, m, a, b, "echo"), a, b)
			if err != nil {
				t.Fatalf("greet %s->%s before the partition: %v", a, b, err)
			}
			out = append(out, pairConn{a, b, c})
		}
	}
	return out
}

// probeAll runs every probe at once, so blocked ones time out together.
func probeAll(t *testing.T, m *mesh.Mesh, servers map[string]*echoServer, conns []pairConn, g nemesis.Grudge, tag string) {
	t.Helper()
	var wg sync.WaitGroup
	check := func(what string, want bool, err error) {
		if (err == nil) != want {
			t.Errorf("%s: got err=%v, want passing=%v", what, err, want)
		}
	}
	for _, pc := range conns {
		wg.Go(func() {
			a, b := pc.from, pc.to
			fresh := g.Reachable(a, b)
			tok := fmt.Sprintf("%s-%s-%s", tag, a, b)
			check("new connection "+a+"->"+b, fresh, freshProbe(mustAddr(t, m, a, b, "echo"), b, tok, wait(fresh)))
			// b->a first, so the echo of a's line cannot arrive ahead of the push.
			down := !g.Cut(b, a)
			var err error
			if err = servers[b].push(a, "push "+tok); err == nil {
				err = pc.c.expect("push "+tok, wait(down))
			}
			check("old connection "+a+"->"+b+", bytes "+b+"->"+a, down, err)
			up := !g.Cut(a, b)
			if err = pc.c.send("up " + tok); err == nil && !servers[b].received(a, "up "+tok, wait(up)) {
				err = fmt.Errorf("%s never received it", b)
			}
			check("old connection "+a+"->"+b+", bytes "+a+"->"+b, up, err)
		})
	}
	for _, b := range five {
		wg.Go(func() {
			check("client->"+b, true, freshProbe(mustAddr(t, m, mesh.Client, b, "echo"), b, tag+"-client", passWait))
		})
	}
	wg.Wait()
}

// checkPartitionCounters waits for the drops the grudge implies and checks
// that no other link dropped or held anything.
func checkPartitionCounters(t *testing.T, m *mesh.Mesh, before map[mesh.Link]mesh.Counters, g nemesis.Grudge) {
	t.Helper()
	ok := func(d mesh.Counters, l mesh.Link) bool {
		if l.From == mesh.Client {
			return d.BytesDropped == 0 && d.BytesReturnDropped == 0 && d.ConnsBlocked == 0
		}
		return (d.ConnsBlocked > 0) == !g.Reachable(l.From, l.To) &&
			(d.BytesDropped > 0) == g.Cut(l.From, l.To) &&
			(d.BytesReturnDropped > 0) == g.Cut(l.To, l.From)
	}
	var stats map[mesh.Link]mesh.Counters
	// Drops are counted as the proxy reads, which may trail the probes.
	eventually(t, "drops counted on every blocked link", func() bool {
		stats = m.Stats()
		for l, c := range stats {
			if !ok(delta(c, before[l]), l) {
				return false
			}
		}
		return true
	})
	if len(stats) != 5*4+5 {
		t.Errorf("%d links, want %d", len(stats), 5*4+5)
	}
}

// checkHeal verifies that the heal reset exactly the connections that lost
// bytes, left the others working, and lets new connections through.
func checkHeal(t *testing.T, m *mesh.Mesh, servers map[string]*echoServer, conns []pairConn, g nemesis.Grudge, tag string, before map[mesh.Link]mesh.Counters) {
	t.Helper()
	after := m.Stats() // the heal resets synchronously
	for _, pc := range conns {
		a, b := pc.from, pc.to
		l := mesh.Link{From: a, To: b, Service: "echo"}
		broken := !g.Reachable(a, b)
		if got := delta(after[l], before[l]).ConnsReset; got != map[bool]int64{true: 1, false: 0}[broken] {
			t.Errorf("%s: %d connections reset at heal, want broken=%v", l, got, broken)
		}
		if broken {
			if !pc.c.ended() {
				t.Errorf("%s: old connection still open after heal, though it lost bytes", l)
			}
			continue
		}
		// The echo of the probe's line is still unread.
		if err := pc.c.expect(fmt.Sprintf("echo up %s-%s-%s", tag, a, b), passWait); err != nil {
			t.Errorf("%s: echo of the probe line: %v", l, err)
		}
		tok := "healed-" + tag + "-" + a + "-" + b
		if err := servers[b].push(a, tok); err != nil {
			t.Fatal(err)
		}
		if err := pc.c.expect(tok, passWait); err != nil {
			t.Errorf("%s: untouched connection broken by heal: %v", l, err)
		}
		if err := freshProbe(mustAddr(t, m, a, b, "echo"), b, tok, passWait); err != nil {
			t.Errorf("%s: new connection after heal: %v", l, err)
		}
	}
	for _, pc := range conns {
		if !g.Reachable(pc.from, pc.to) {
			if err := freshProbe(mustAddr(t, m, pc.from, pc.to, "echo"), pc.to, "after-"+tag, passWait); err != nil {
				t.Errorf("%s->%s: new connection after heal: %v", pc.from, pc.to, err)
			}
		}
	}
}
