package nemesis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/faultline/faultline/mesh"
)

// On local nodes a partition cuts only what runs through the proxy mesh:
// a system whose peers dial each other at their real listen addresses
// (its own gossip, or an advertise address it derived itself) goes around
// the cut, and the partition tests nothing of its replication. The
// partition's evidence therefore says how many connections of the system's
// own crossed each cut link before the fault and during it, and names the
// fix when there were none.

// peerTraffic describes the system's own connections over g's cut links:
// base is the mesh's counters when the partition started (everything
// before the fault), now when its hold ended, read before any probe of
// faultline's own. "" when g cuts no link of the mesh.
func peerTraffic(g Grudge, base, now map[mesh.Link]mesh.Counters) string {
	cut := map[[2]string]bool{}
	for node, peers := range g {
		for _, p := range peers {
			// Both directions: a cut pair holds a connection whichever side dials.
			cut[[2]string{node, p}], cut[[2]string{p, node}] = true, true
		}
	}
	type row struct {
		link           string
		before, during int64
	}
	var rows []row
	for id, c := range now {
		if id.From == mesh.Client || !cut[[2]string{id.From, id.To}] {
			continue
		}
		b := base[id]
		rows = append(rows, row{id.String(), b.ConnsAccepted, c.ConnsAccepted - b.ConnsAccepted})
	}
	if len(rows) == 0 {
		return ""
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.link, b.link) })
	var used []string
	var total int64
	for _, r := range rows {
		if r.before+r.during > 0 {
			used = append(used, fmt.Sprintf("%s %d before, %d during", r.link, r.before, r.during))
		}
		total += r.before + r.during
	}
	if total == 0 {
		return fmt.Sprintf("the system's peers never dialled each other through the mesh: 0 connections on the %d cut links "+
			"before or during the fault, so the partition did not cut its peer traffic. Set the system's advertise/peer "+
			"addresses to node.addr_of(peer, service, port), the mesh address of each peer, not its listen address", len(rows))
	}
	s := "the system's own connections on the cut links: " + strings.Join(used, "; ")
	if idle := len(rows) - len(used); idle > 0 {
		s += fmt.Sprintf("; %d other cut links carried none", idle)
	}
	return s
}
