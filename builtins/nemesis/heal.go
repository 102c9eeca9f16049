package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/faultline/faultline/builtins/control"
	"github.com/faultline/faultline/mesh"
)

// StateFile is where a node remembers faults that leave no mark faultline
// can find by name: paused pids, fill files and the delay agent. It lives
// under /run, which is per node in a local cluster and per boot on real
// machines, like the pauses it records.
const StateFile = "/run/faultline/nemesis.state"

// QdiscHandle marks the root qdiscs faultline installs, so heal removes
// those and never a qdisc someone else configured.
const QdiscHandle = "fa17:"

// stateLib is shared shell: note KIND VALUE appends a line to the state
// file (refusing a value with a newline, which would forge a second
// record); forget KIND VALUE removes it.
const stateLib = `state=` + StateFile + `
note() { case $2 in *"
"*) echo "refusing a state value with a newline" >&2; return 1;; esac; mkdir -p "${state%/*}" && echo "$1 $2" >>"$state"; }
forget() { [ -f "$state" ] || return 0; grep -vxF -- "$1 $2" "$state" >"$state.new"; mv "$state.new" "$state"; }
`

// healScript removes everything faultline may have left on the node, with
// every iptables front end present (a crashed run may have used another
// backend), then prints one line per thing removed and a final "left N"
// count of faultline chains still present.
const healScript = stateLib + stopAgentFn + `for t in iptables iptables-legacy iptables-nft; do
  command -v "$t" >/dev/null 2>&1 || continue
  while "$t" -w 5 -D INPUT -j ` + Chain + ` 2>/dev/null; do echo "$t: jump INPUT"; done
  for c in ` + Chain + ` ` + PartitionChain + ` ` + LossChain + ` ` + DelayChain + `; do "$t" -w 5 -F "$c" 2>/dev/null; done
  for c in ` + Chain + ` ` + PartitionChain + ` ` + LossChain + ` ` + DelayChain + `; do "$t" -w 5 -X "$c" 2>/dev/null && echo "$t: chain $c"; done
done
for d in $(ls /sys/class/net); do
  if tc qdisc show dev "$d" root 2>/dev/null | grep -q " ` + QdiscHandle + ` "; then
    tc qdisc del dev "$d" root && echo "qdisc $d"
  fi
done
if [ -f "$state" ]; then
  while read -r kind val; do
    case $kind in
      paused) kill -s CONT "$val" 2>/dev/null && echo "resumed $val";;
      fill) rm -f -- "$val" && echo "removed $val";;
      agent) stop_agent "$val";;
    esac
  done <"$state"
  rm -f "$state"
fi
left=0
for t in iptables iptables-legacy iptables-nft; do
  command -v "$t" >/dev/null 2>&1 || continue
  n=$("$t" -w 5 -S 2>/dev/null | grep -c -- '` + Chain + `')
  left=$((left + n))
done
echo "left $left"
`

// HealReport says what HealAll removed on each node.
type HealReport map[string][]string

// HealAll removes from every node of pool whatever faultline may have
// created there: its iptables chains and jump, its qdiscs, paused processes
// (resumed) and fill files recorded in StateFile. It is idempotent and safe
// after a controller crash. Nodes are healed in parallel; an error names
// each node that could not be healed or still shows a faultline chain.
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
		return nil, fmt.Errorf("heal %s: %w", node, err)
	}
	if lp, ok := r.(control.Processes); ok {
		// A local node has no rules of its own: its links are the mesh's
		// (healed by HealAll) and its faults are paused daemons.
		return lp.Resume(ctx)
	}
	out, err := runScript(ctx, r, "heal faultline faults", healScript)
	if err != nil {
		return nil, fmt.Errorf("heal %s: %w", node, err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	removed := lines[:len(lines)-1]
	if last := lines[len(lines)-1]; last != "left 0" {
		return removed, fmt.Errorf("heal %s: faultline rules remain after heal (%s)", node, last)
	}
	return removed, nil
}
