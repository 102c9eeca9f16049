package demostore

import (
	"fmt"
	"strings"
)

// Bugs lists the faults --bug switches on, one "name: description" line
// each, for help texts. Each is a real bug class of replicated stores, so a
// run against it gives faultline a genuine anomaly to find.
var Bugs = []string{
	bugStaleReads + ": every node, followers included, answers reads from its local state with no leader check (follower reads without read-index)",
	bugUnsafeCAS + ": the leader compares a cas against its local state, then replicates a plain write (check-then-act outside the log: lost updates)",
}

// Bug names accepted by --bug.
const (
	bugStaleReads = "stale-reads"
	bugUnsafeCAS  = "unsafe-cas"
)

// checkBug accepts "" (no bug) or the name of one of Bugs.
func checkBug(name string) error {
	if name == "" {
		return nil
	}
	names := make([]string, 0, len(Bugs))
	for _, b := range Bugs {
		n, _, _ := strings.Cut(b, ":")
		if n == name {
			return nil
		}
		names = append(names, n)
	}
	return fmt.Errorf("unknown --bug %q (known: %s)", name, strings.Join(names, ", "))
}
