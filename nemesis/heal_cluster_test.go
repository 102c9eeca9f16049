package nemesis

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
)

// healClusterConfig is this test's own cluster.
var healClusterConfig = cluster.Config{Nodes: 3, Prefix: "flw", Subnet: "10.96.0.0/24",
	StateDir: "/var/lib/faultline-test-heal2/cluster"}

// TestHealOnClusterTouchesOnlyFaultline: on nodes with chains of their own
// (one named MYFAULTLINE) and what a controller killed mid-fault and
// mid-upload left (faultline's chain and jump, an upload temporary, the
// delay agent's record and log), HealAll removes exactly faultline's
// things, loads no legacy iptables table, and names the node it could not
// reach as not healed; a second heal finds nothing.
func TestHealOnClusterTouchesOnlyFaultline(t *testing.T) {
	st, pool := upClusterWith(t, healClusterConfig)
	ctx := context.Background()
	const setup = `iptables -w 5 -N MYFAULTLINE && iptables -w 5 -A MYFAULTLINE -s 10.96.0.200/32 -j DROP &&
iptables -w 5 -A INPUT -j MYFAULTLINE &&
iptables -w 5 -N ` + Chain + ` && iptables -w 5 -I INPUT 1 -j ` + Chain + ` &&
mkdir -p ` + control.BinDir + ` /run/faultline &&
echo part >` + control.BinDir + `/.faultline-0123456789ab.beef` + control.UploadTempSuffix + ` &&
echo old >` + agentLog + ` && echo "agent ` + agentPidfile + `" >>` + StateFile
	const look = `echo "tables: $(tr '\n' ' ' </proc/net/ip_tables_names 2>/dev/null)"
iptables -w 5 -S | grep -- FAULTLINE
ls -A ` + control.BinDir + ` /run/faultline 2>&1
true`
	before := map[string]string{}
	for _, n := range pool.Nodes() {
		r, err := pool.Remote(ctx, n.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runScript(ctx, r, "set up the node", setup); err != nil {
			t.Fatal(err)
		}
		if before[n.Name], err = runScript(ctx, r, "look", look); err != nil {
			t.Fatal(err)
		}
	}
	// The pool heal gets also names a node nothing answers for.
	nodes := append(pool.Nodes(), control.Node{Name: "gone", Host: "127.0.0.1", Port: 1})
	withGone, err := control.NewPool(nodes, control.SSHDialer(control.SSHConfig{KeyFiles: []string{st.ClientKey}, KnownHosts: st.KnownHosts}))
	if err != nil {
		t.Fatal(err)
	}
	defer withGone.Close()
	rep, err := HealAll(ctx, withGone)
	if failed := HealFailures(err); len(failed) != 1 || failed["gone"] == nil {
		t.Errorf("HealAll: %v; want only the unreachable node not healed", err)
	}
	for _, n := range pool.Nodes() {
		want := []string{"iptables: jump INPUT", "iptables: chain " + Chain,
			"removed upload temporary " + control.BinDir + "/.faultline-0123456789ab.beef" + control.UploadTempSuffix}
		if got := rep[n.Name]; !slices.Equal(got, want) {
			t.Errorf("%s: heal removed %q, want %q", n.Name, got, want)
		}
		r, err := pool.Remote(ctx, n.Name)
		if err != nil {
			t.Fatal(err)
		}
		after, err := runScript(ctx, r, "look", look)
		if err != nil {
			t.Fatal(err)
		}
		tables := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
		if tables(after) != tables(before[n.Name]) {
			t.Errorf("%s: legacy tables %q after heal, %q before", n.Name, tables(after), tables(before[n.Name]))
		}
		for _, l := range []string{"-N MYFAULTLINE", "-A MYFAULTLINE -s 10.96.0.200/32 -j DROP", "-A INPUT -j MYFAULTLINE"} {
			if !strings.Contains(after, l+"\n") {
				t.Errorf("%s: heal removed the node's own %q:\n%s", n.Name, l, after)
			}
		}
		for _, l := range []string{"-N " + Chain + "\n", "-j " + Chain + "\n", control.UploadTempSuffix, "nfdelay.log"} {
			if strings.Contains(after, l) {
				t.Errorf("%s: %q still there after heal:\n%s", n.Name, l, after)
			}
		}
	}
	rep, err = HealAll(ctx, pool)
	if err != nil {
		t.Fatalf("second heal: %v", err)
	}
	for n, removed := range rep {
		if len(removed) != 0 {
			t.Errorf("second heal removed %q on %s", removed, n)
		}
	}
}
