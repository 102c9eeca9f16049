package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/mesh"
)

// StateFile is where a node remembers faults that leave no mark faultline
// can find by name: paused pids, fill files and the delay agent. It lives
// under /run, which is per node in a local cluster and per boot on real
// machines, like the pauses it records.
const StateFile = control.StateDir + "/nemesis.state"

// QdiscHandle marks the root qdiscs faultline installs, so heal removes
// those and never a qdisc someone else configured.
const QdiscHandle = "fa17:"

// stateLib is shared shell: note KIND VALUE appends a line to the state
// file (refusing a value with a newline, which would forge a second
// record); forget KIND VALUE removes it.
//
// The state file's directory is made with control.CreatedLib's make_dir,
// so heal removes it last (control.RemoveCreated) once it is empty.
const stateLib = control.CreatedLib + `state=` + StateFile + `
note() { case $2 in *"
"*) echo "refusing a state value with a newline" >&2; return 1;; esac; make_dir "${state%/*}" && echo "$1 $2" >>"$state"; }
forget() { [ -f "$state" ] || return 0; grep -vxF -- "$1 $2" "$state" >"$state.new"; mv "$state.new" "$state"; }
`

// healScript removes everything faultline may have left on the node, with
// every iptables backend present (a crashed run may have used another one;
// a legacy table is touched only if the node already has it), and the
// temporaries of uploads a crash cut off, then prints one line per thing
// removed and a final "left N" count of faultline's own chains, rules and
// jumps still present (matched by exact name, not a user's MYFAULTLINE).
const healScript = stateLib + control.OwnedFn + stopAgentFn + hasTableFn + `seen=
for t in iptables iptables-legacy iptables-nft; do
  first_front_end "$t" || continue
  if has_table "$t" filter; then
    while "$t" -w 5 -D INPUT -j ` + Chain + ` 2>/dev/null; do echo "$t: jump INPUT"; done
    for c in ` + Chain + ` ` + PartitionChain + ` ` + LossChain + ` ` + DelayChain + `; do "$t" -w 5 -F "$c" 2>/dev/null; done
    for c in ` + Chain + ` ` + PartitionChain + ` ` + LossChain + ` ` + DelayChain + `; do "$t" -w 5 -X "$c" 2>/dev/null && echo "$t: chain $c"; done
  fi
  has_table "$t" mangle || continue
  while "$t" -w 5 -t mangle -D INPUT -j ` + DelayChain + ` 2>/dev/null; do echo "$t: mangle jump INPUT"; done
  "$t" -w 5 -t mangle -F ` + DelayChain + ` 2>/dev/null; "$t" -w 5 -t mangle -X ` + DelayChain + ` 2>/dev/null && echo "$t: mangle chain ` + DelayChain + `"
done
for d in $(ls /sys/class/net); do
  if [ "$(tc qdisc show dev "$d" root 2>/dev/null | awk '{print $3; exit}')" = ` + QdiscHandle + ` ]; then
    tc qdisc del dev "$d" root && echo "qdisc $d"
  fi
done
if [ -f "$state" ]; then
  while read -r kind val; do
    case $kind in
      paused) pid=${val%% *} t=${val#* }
        # Only the process faultline stopped: the same start time, not a
        # pid reused since (a record without one is not proof enough).
        if [ "$t" != "$val" ] && [ -n "$t" ] && [ "$(start_time "$pid")" = "$t" ]; then kill -s CONT "$pid" 2>/dev/null && echo "resumed $pid"; fi;;
      fill) rm -f -- "$val" && echo "removed $val";;
      agent) stop_agent "$val";;
    esac
  done <"$state"
  # What file faults kept is put back after the db's teardown (RestoreKept),
  # not here: the run's heal comes before it.
  if grep -q '^kept ' "$state"; then grep '^kept ' "$state" >"$state.new"; mv "$state.new" "$state"; else rm -f "$state"; fi
fi
` + control.SweepUploads + `left=0 seen=
for t in iptables iptables-legacy iptables-nft; do
  first_front_end "$t" || continue
  if has_table "$t" filter; then
    left=$((left + $("$t" -w 5 -S 2>/dev/null | grep -cE -- '` + ownRulesRe + `')))
  fi
  has_table "$t" mangle || continue
  left=$((left + $("$t" -w 5 -t mangle -S 2>/dev/null | grep -cxF -e '-N ` + DelayChain + `' -e '-A INPUT -j ` + DelayChain + `')))
done
echo "left $left"
`

// hasTableFn is shared shell for the iptables front ends.
//
// has_table FRONTEND TABLE says whether asking FRONTEND about TABLE leaves
// the node as it was. Any command of a legacy front end (-D, -F, -X, even
// -S) makes the kernel load that table, so a node that never used legacy
// iptables would be left with empty legacy filter and mangle tables after
// every heal; the loaded legacy tables are listed in
// /proc/net/ip_tables_names (absent while none is). The nf_tables front ends
// create nothing when asked about a missing table or chain. A front end that
// does not say "nf_tables" in its version (iptables 1.6 and older) is legacy.
//
// first_front_end FRONTEND says whether FRONTEND is installed and the first
// of its backend since seen= was reset: iptables is usually iptables-nft or
// iptables-legacy under another name, and one backend's rules are one set,
// to be healed and counted once.
const hasTableFn = `backend() { case $("$1" -V 2>/dev/null) in *nf_tables*) echo nft;; *) echo legacy;; esac; }
has_table() { [ "$(backend "$1")" = nft ] || grep -qxF -- "$2" /proc/net/ip_tables_names 2>/dev/null; }
first_front_end() {
  command -v "$1" >/dev/null 2>&1 || return 1
  b=$(backend "$1")
  case $seen in *"<$b>"*) return 1;; esac
  seen="$seen<$b>"
}
`

// ownRulesRe matches the lines of iptables -S that are faultline's in the
// filter table: its chains (-N), rules in them (-A) and jumps to them
// (-j), by their exact names, so a user chain such as MYFAULTLINE or
// FAULTLINE-MINE, or a jump to one, is not counted as faultline's.
const ownRulesRe = `^-[NA] (` + Chain + `|` + PartitionChain + `|` + LossChain + `|` + DelayChain + `)( |$)|(^| )-j (` + Chain + `|` + PartitionChain + `|` + LossChain + `|` + DelayChain + `)( |$)`

// HealReport says what HealAll removed on each node.
type HealReport map[string][]string

// HealAll removes from every node of pool whatever faultline may have
// created there: its iptables chains and jump, its qdiscs, paused processes
// (resumed: those StateFile records, by pid and start time, and no other)
// and fill files recorded in StateFile. It is idempotent and safe
// after a controller crash. Nodes are healed in parallel; the error joins a
// *NodeHealError for each node that could not be healed or still shows a
// faultline chain (HealFailures lists them by node).
func HealAll(ctx context.Context, pool *control.Pool) (HealReport, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	rep := HealReport{}
	if m, ok := pool.Network().(*mesh.Mesh); ok {
		if len(m.Blocked()) > 0 || len(m.Shapes()) > 0 {
			rep["mesh"] = []string{"partition and link shaping removed"}
		}
		m.Heal()
		if len(m.Blocked()) > 0 || len(m.Shapes()) > 0 {
			errs = append(errs, errors.New("heal: the proxy mesh still shows faults after heal"))
		}
	}
	for _, n := range pool.Nodes() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			removed, err := healNode(ctx, pool, n.Name)
			mu.Lock()
			defer mu.Unlock()
			rep[n.Name] = removed
			if err != nil {
				errs = append(errs, err)
			}
		}()
	}
	wg.Wait()
	return rep, errors.Join(errs...)
}

func healNode(ctx context.Context, pool *control.Pool, node string) ([]string, error) {
	r, err := pool.Remote(ctx, node)
	if err != nil {
		return nil, &NodeHealError{Node: node, Err: err}
	}
	if lp, ok := r.(control.Processes); ok {
		// A local node has no rules of its own: its links are the mesh's
		// (healed by HealAll) and its faults are paused daemons.
		resumed, err := lp.Resume(ctx)
		if err != nil {
			return resumed, &NodeHealError{Node: node, Err: err}
		}
		return resumed, nil
	}
	// Clock faults first: healScript removes the state file that records
	// them, and a clock is set back from the controller, not the node.
	var clock []string
	if reset, o, err := resetClock(ctx, pool, node, r); err != nil {
		return nil, &NodeHealError{Node: node, Err: err}
	} else if reset {
		clock = append(clock, "clock reset to the controller's (offset now "+o.String()+")")
	}
	out, err := runScript(ctx, r, "heal faultline faults", healScript)
	if err != nil {
		return clock, &NodeHealError{Node: node, Err: err}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	removed := append(clock, lines[:len(lines)-1]...)
	if last := lines[len(lines)-1]; last != "left 0" {
		return removed, &NodeHealError{Node: node, Err: fmt.Errorf("faultline rules remain after heal (%s)", last)}
	}
	return removed, nil
}
