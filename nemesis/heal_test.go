package nemesis

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/integration"
)

// TestHealAllNamesUnreachableNodes: a node heal cannot reach, or that still
// shows faultline's rules afterwards, is a NodeHealError (HealFailures names
// it), never a node with nothing to remove.
func TestHealAllNamesUnreachableNodes(t *testing.T) {
	nodes := []control.Node{{Name: "n1", Host: "10.0.0.1"}, {Name: "n2", Host: "10.0.0.2"}, {Name: "n3", Host: "10.0.0.3"}}
	down := errors.New("dial tcp 10.0.0.2:22: connect: no route to host")
	pool, err := control.NewPool(nodes, func(_ context.Context, n control.Node) (control.Remote, error) {
		if n.Name == "n2" {
			return nil, down
		}
		return &fakeRemote{node: n.Name, reply: func(node, _ string, _ []string) (string, error) {
			if node == "n3" {
				return "iptables: chain FAULTLINE\nleft 1\n", nil
			}
			return "left 0\n", nil
		}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := HealAll(context.Background(), pool)
	if err == nil {
		t.Fatalf("HealAll = %v, nil error with n2 unreachable", rep)
	}
	failed := HealFailures(err)
	if len(failed) != 2 || !errors.Is(failed["n2"], down) || failed["n3"] == nil || !strings.Contains(failed["n3"].Error(), "left 1") {
		t.Errorf("HealFailures = %v, want n2 (unreachable) and n3 (left 1)", failed)
	}
	if _, bad := failed["n1"]; bad || len(rep["n1"]) != 0 {
		t.Errorf("n1 healed cleanly but reads %v / %v", failed["n1"], rep["n1"])
	}
	if got := rep["n3"]; !slices.Equal(got, []string{"iptables: chain FAULTLINE"}) {
		t.Errorf("n3 removed %q, want the chain it did remove", got)
	}
	if len(HealFailures(nil)) != 0 {
		t.Error("HealFailures(nil) names nodes")
	}
}

// TestHealScriptOnFreshNode runs healScript in a network and mount namespace
// of its own (a private /run, so no state file of this host is read) on a
// node set up as each case says (a private /opt too, for faultline's own
// directory), and checks what it removed, its "left" count, and the rules,
// legacy tables and files the node has afterwards.
func TestHealScriptOnFreshNode(t *testing.T) {
	integration.NeedRoot(t)
	for _, c := range []string{"unshare", "iptables", "iptables-legacy", "iptables-nft"} {
		integration.NeedCommand(t, c)
	}
	const ourChains = "-N FAULTLINE\n-N FAULTLINE-PART\n-A INPUT -j FAULTLINE\n-A FAULTLINE -j FAULTLINE-PART\n-A FAULTLINE-PART -s 10.1.1.1/32 -j DROP\n"
	tests := []struct {
		name      string
		setup     string   // shell run in the namespace before heal
		removed   []string // heal's report
		left      string   // its last line
		tables    string   // /proc/net/ip_tables_names afterwards, space-separated
		keep      []string // iptables -S lines still there afterwards (nft)
		gone      []string // iptables -S lines removed (nft)
		legacyOK  []string // iptables-legacy -S lines still there afterwards
		after     string   // shell run afterwards, whose output must be wantAfter
		wantAfter string
	}{{
		// Asking a legacy front end anything loads its tables: heal must
		// not leave a node with legacy filter and mangle tables it never had.
		name: "fresh node", left: "left 0", tables: "",
	}, {
		name: "user chains named like faultline's",
		setup: `iptables-nft -N MYFAULTLINE && iptables-nft -N FAULTLINE-MINE &&
iptables-nft -A INPUT -j MYFAULTLINE && iptables-nft -A INPUT -j FAULTLINE-MINE &&
iptables-nft -A MYFAULTLINE -s 10.9.9.9/32 -j DROP`,
		left: "left 0", tables: "",
		keep: []string{"-N MYFAULTLINE", "-N FAULTLINE-MINE", "-A INPUT -j MYFAULTLINE", "-A INPUT -j FAULTLINE-MINE", "-A MYFAULTLINE -s 10.9.9.9/32 -j DROP"},
	}, {
		name:    "faultline's chains beside a user's (nf_tables)",
		setup:   restoreRules("iptables-nft", ourChains+"-N MYFAULTLINE\n-A INPUT -j MYFAULTLINE\n"),
		removed: []string{"iptables: jump INPUT", "iptables: chain FAULTLINE", "iptables: chain FAULTLINE-PART"},
		left:    "left 0", tables: "",
		keep: []string{"-N MYFAULTLINE", "-A INPUT -j MYFAULTLINE"},
		gone: []string{"-N FAULTLINE", "-N FAULTLINE-PART", "-A INPUT -j FAULTLINE"},
	}, {
		// The legacy filter table is in use, so heal cleans it, and still
		// loads no mangle table.
		name:    "faultline's chains in legacy iptables",
		setup:   restoreRules("iptables-legacy", ourChains),
		removed: []string{"iptables-legacy: jump INPUT", "iptables-legacy: chain FAULTLINE", "iptables-legacy: chain FAULTLINE-PART"},
		left:    "left 0", tables: "filter",
		legacyOK: []string{"-P INPUT ACCEPT"},
	}, {
		// A jump to FAULTLINE from a user's chain is not faultline's to
		// delete (it only jumps from INPUT); the count names both lines.
		name:    "a user's jump to faultline's chain is counted exactly",
		setup:   restoreRules("iptables-nft", "-N FAULTLINE\n-N MINE\n-A MINE -j FAULTLINE\n-N MYFAULTLINE\n"),
		removed: nil, left: "left 2", tables: "",
		keep: []string{"-N FAULTLINE", "-A MINE -j FAULTLINE", "-N MYFAULTLINE"},
	}, {
		// A controller killed mid-upload of the delay agent: the agent was
		// noted, the binary's temporary and an old agent log are there.
		name: "a crash mid-upload",
		setup: `mkdir -p /opt/faultline/bin /run/faultline
echo part >/opt/faultline/bin/.faultline-0123456789ab.f00d.faultline-tmp
echo mine >/opt/faultline/bin/.notes.txt
echo old >` + agentLog + `
echo "agent ` + agentPidfile + `" >` + StateFile,
		removed: []string{"removed upload temporary /opt/faultline/bin/.faultline-0123456789ab.f00d.faultline-tmp"},
		left:    "left 0", tables: "",
		after:     "ls -A /opt/faultline/bin /run/faultline",
		wantAfter: "/opt/faultline/bin:\n.notes.txt\n\n/run/faultline:",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			heal, tables, nft, legacy, after := runHealInNamespace(t, tt.setup, tt.after)
			if after != tt.wantAfter {
				t.Errorf("after heal, %s:\n%s\nwant:\n%s", tt.after, after, tt.wantAfter)
			}
			lines := strings.Split(strings.TrimSpace(heal), "\n")
			if got := lines[len(lines)-1]; got != tt.left {
				t.Errorf("heal ends with %q, want %q\n%s", got, tt.left, heal)
			}
			if got := lines[:len(lines)-1]; !slices.Equal(got, tt.removed) && (len(got) != 0 || len(tt.removed) != 0) {
				t.Errorf("heal removed %q, want %q", got, tt.removed)
			}
			if tables != tt.tables {
				t.Errorf("legacy tables after heal: %q, want %q", tables, tt.tables)
			}
			for _, l := range tt.keep {
				if !slices.Contains(nft, l) {
					t.Errorf("heal removed the node's own %q; left:\n%s", l, strings.Join(nft, "\n"))
				}
			}
			for _, l := range tt.gone {
				if slices.Contains(nft, l) {
					t.Errorf("%q is still there after heal", l)
				}
			}
			for _, l := range tt.legacyOK {
				if !slices.Contains(legacy, l) {
					t.Errorf("legacy rules after heal lack %q: %q", l, legacy)
				}
			}
			if tt.legacyOK != nil && slices.ContainsFunc(legacy, func(l string) bool { return strings.Contains(l, "FAULTLINE") }) {
				t.Errorf("faultline rules remain in legacy iptables: %q", legacy)
			}
		})
	}
}

// restoreRules returns shell that loads the filter rules (iptables -S
// lines) through front end fe.
func restoreRules(fe, rules string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(rules), "\n") {
		b.WriteString(fe + " " + l + " || exit 1\n")
	}
	return b.String()
}

// runHealInNamespace runs setup, then healScript, in new network and mount
// namespaces (private /run and /sys), and returns heal's output, the loaded
// legacy tables afterwards, and the nf_tables and legacy filter rules
// (legacy read only when its filter table is loaded, since reading loads
// it).
func runHealInNamespace(t *testing.T, setup, after string) (heal, tables string, nft, legacy []string, afterOut string) {
	t.Helper()
	const wrapper = `mount -t tmpfs none /run && mount -t sysfs none /sys && mount -t tmpfs none /opt || exit 90
sh -ec "$1" || exit 91
echo '--- heal'
sh -c "$2" faultline-nemesis || exit 92
echo '--- tables'
tr '\n' ' ' </proc/net/ip_tables_names 2>/dev/null
echo
echo '--- nft'
iptables-nft -S
echo '--- legacy'
if grep -qx filter /proc/net/ip_tables_names 2>/dev/null; then iptables-legacy -S; fi
echo '--- after'
sh -c "$3" 2>&1
`
	out, err := exec.Command("unshare", "--net", "--mount", "sh", "-c", wrapper, "sh", setup, healScript, after).CombinedOutput()
	if err != nil {
		t.Fatalf("heal in a namespace: %v\n%s", err, out)
	}
	parts := map[string]string{}
	sec := ""
	for _, l := range strings.SplitAfter(string(out), "\n") {
		if name, ok := strings.CutPrefix(l, "--- "); ok {
			sec = strings.TrimSpace(name)
			continue
		}
		parts[sec] += l
	}
	lines := func(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }
	return parts["heal"], strings.TrimSpace(parts["tables"]), lines(parts["nft"]), lines(parts["legacy"]), strings.TrimSpace(parts["after"])
}
