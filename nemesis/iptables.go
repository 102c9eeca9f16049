package nemesis

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/control"
)

// Chains faultline owns on every node's filter table (and DelayChain, in
// the mangle table: delay.go). Only Chain is jumped to (from INPUT); it
// returns loopback and the controller to INPUT, then hands over to the
// fault chains, so stopping one fault flushes only its own chain and
// healing deletes exactly these chains and that one jump.
//
// No faultline rule ever ACCEPTs: a fault may add drops but must never
// remove the node's own. The jump sits at INPUT 1 so a fault's DROP comes
// before any ACCEPT of the node's, and every packet a fault does not drop
// (the exempted loopback and controller included) RETURNs to INPUT, where
// the node's own rules, DROPs included, still apply.
const (
	Chain          = "FAULTLINE"
	PartitionChain = "FAULTLINE-PART"
	LossChain      = "FAULTLINE-LOSS"
)

// iptablesLib is shared shell: ipt runs iptables waiting for the xtables
// lock; ensure builds faultline's chains and the jump, idempotently, with the
// controller's address ($1) exempted (RETURNed to INPUT, never accepted)
// before any fault rule.
const iptablesLib = `ipt() { iptables -w 5 "$@"; }
ensure() {
  for c in ` + Chain + ` ` + PartitionChain + ` ` + LossChain + `; do ipt -N "$c" 2>/dev/null || true; done
  ipt -F ` + Chain + ` || return 1
  ipt -A ` + Chain + ` -i lo -j RETURN || return 1
  if [ -n "$1" ]; then ipt -A ` + Chain + ` -s "$1" -j RETURN || return 1; fi
  ipt -A ` + Chain + ` -j ` + PartitionChain + ` || return 1
  ipt -A ` + Chain + ` -j ` + LossChain + ` || return 1
  ipt -C INPUT -j ` + Chain + ` 2>/dev/null || ipt -I INPUT 1 -j ` + Chain + `
}
`

// controllerScript prints the address this ssh session comes from, so the
// rules can exempt the controller.
const controllerScript = `set -- $SSH_CLIENT; echo "$1"`

// dropScript replaces the rules of chain $2 with DROPs of the sources that
// follow (or, with a probability $3 other than "", a random drop of
// everything), then prints the chain back.
const dropScript = iptablesLib + `ctl=$1 chain=$2 prob=$3; shift 3
ensure "$ctl" || exit 1
ipt -F "$chain" || exit 1
if [ -n "$prob" ]; then
  ipt -A "$chain" -m statistic --mode random --probability "$prob" -j DROP || exit 1
else
  for ip; do ipt -A "$chain" -s "$ip" -j DROP || exit 1; done
fi
ipt -S INPUT | grep -c -- '-j ` + Chain + `$' || true
ipt -L "$chain" -v -x -n
`

// readScript prints chain $1 with counters, and whether INPUT jumps to
// faultline's chain.
const readScript = `ipt() { iptables -w 5 "$@"; }
ipt -S INPUT | grep -c -- '-j ` + Chain + `$' || true
ipt -L "$1" -v -x -n 2>/dev/null || true
`

// flushScript prints chain $1 with counters, then empties it.
const flushScript = readScript + `ipt -F "$1" 2>/dev/null || true
`

// Rule is one rule of a faultline chain as read back from the node.
type Rule struct {
	Packets, Bytes int64
	Target         string
	Source         string // "0.0.0.0/0" for any
	Extra          string // match text after the addresses (statistic mode ...)
}

// ChainState is a chain read back from a node: whether INPUT jumps to
// faultline, and the chain's rules with counters.
type ChainState struct {
	Jumped bool
	Rules  []Rule
}

// ParseChain parses the output of readScript: a count of INPUT jumps, then
// `iptables -L CHAIN -v -x -n`.
func ParseChain(out string) (ChainState, error) {
	var st ChainState
	sc := bufio.NewScanner(strings.NewReader(out))
	first := true
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if first {
			first = false
			n, err := strconv.Atoi(line)
			if err != nil {
				return st, fmt.Errorf("parse chain: jump count %q", line)
			}
			st.Jumped = n > 0
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "Chain" || f[0] == "pkts" {
			continue
		}
		// pkts bytes target prot opt in out source destination [extra...]
		if len(f) < 9 {
			return st, fmt.Errorf("parse chain: short rule line %q", line)
		}
		pk, err1 := strconv.ParseInt(f[0], 10, 64)
		by, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil || pk < 0 || by < 0 {
			return st, fmt.Errorf("parse chain: bad counters in %q", line)
		}
		st.Rules = append(st.Rules, Rule{Packets: pk, Bytes: by, Target: f[2], Source: f[7], Extra: strings.Join(f[9:], " ")})
	}
	if first {
		return st, fmt.Errorf("parse chain: empty output")
	}
	return st, sc.Err()
}

// Drops sums the packets dropped by the chain's DROP rules.
func (c ChainState) Drops() int64 {
	var n int64
	for _, r := range c.Rules {
		if r.Target == "DROP" {
			n += min(r.Packets, math.MaxInt64-n) // saturate rather than wrap
		}
	}
	return n
}

// hasDrop reports whether the chain drops packets from ip.
func (c ChainState) hasDrop(ip string) bool {
	for _, r := range c.Rules {
		if r.Target == "DROP" && (r.Source == ip || r.Source == ip+"/32") {
			return true
		}
	}
	return false
}

// runScript runs script on r with args and returns stdout.
func runScript(ctx context.Context, r control.Remote, label, script string, args ...string) (string, error) {
	argv := append([]string{"sh", "-c", script, "faultline-nemesis"}, args...)
	res, err := r.Run(ctx, control.Cmd{Argv: argv, Timeout: time.Minute, Label: label})
	if err != nil {
		return string(res.Stdout), fmt.Errorf("%s: %w", label, err)
	}
	return string(res.Stdout), nil
}
