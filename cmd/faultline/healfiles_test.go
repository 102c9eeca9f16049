package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testcluster"
	"github.com/faultline/faultline/nemesis"
)

var healFilesClusterConfig = cluster.Config{Nodes: 3, Prefix: "flf", Subnet: "10.98.0.0/24",
	StateDir: "/var/lib/faultline-test-healfiles/cluster"}

// healFilesScript uploads faultline's binary to every node (node.faultline
// in the db's setup, as the demo store's recipe does) and delays every
// node's input, which runs faultline's NFQUEUE delay agent there on a
// kernel without netem (its pid, stats and log files under /run/faultline).
const healFilesScript = `
load("@stdlib//workloads.star", "cas_register")

def _setup(node):
    node.exec("test", "-x", node.faultline())

def _teardown(node):
    pass

scenario(name = "made", db = struct(setup = _setup, teardown = _teardown), client = client.register(),
         workload = gen.stagger("10ms", cas_register()), checker = check.stats(),
         nemesis = nemesis.delay(nodes = "all", delay = "20ms", interval = "INTERVAL", hold = "HOLD"),
         budgets = {"smoke": budget(duration = "DURATION")})
`

// ownFilesScript plants the node's own files where faultline makes its
// own: beside the binary's directory (n1), in it (n2), and in faultline's
// state directory (n3).
const ownFilesScript = `set -e
case $1 in
n1) mkdir -p /opt/faultline && echo "n1's own" >/opt/faultline/own.conf;;
n2) mkdir -p /opt/faultline/bin && echo "n2's own" >/opt/faultline/bin/own-tool;;
n3) mkdir -p /run/faultline && echo "n3's own" >/run/faultline/own.pid;;
esac
`

// filesScript lists every path under the node's own /opt and /run (both
// private to the node) with a checksum of each regular file, and then,
// marked "faultline:", what of faultline's is there: an uploaded binary,
// an upload temporary, the delay agent's files, the record of what it made.
const filesScript = `find /opt /run -xdev \( -path /run/sshd -o -path '/run/sshd/*' -o -path /run/netns -o -path '/run/netns/*' \) -prune -o -print 2>/dev/null | sort | while read -r p; do
  if [ -f "$p" ]; then echo "$p $(sha256sum <"$p" | cut -c1-16)"; else echo "$p"; fi
done
ls -d ` + control.BinDir + `/faultline-* ` + control.BinDir + `/.*` + control.UploadTempSuffix + ` ` + control.StateDir + `/nfdelay.* ` + control.CreatedFile + ` 2>/dev/null | sed 's/^/faultline: /'
true
`

// TestHealLeavesNothingOfFaultline: what faultline uploads and makes on a
// node for itself (its binary, the delay agent's pid, stats and log files,
// the directories it made for them) is gone after a run's own heal, and
// after `faultline heal` following a SIGKILLed controller, while the
// node's own files beside faultline's, in the same directories, stay as
// they were.
func TestHealLeavesNothingOfFaultline(t *testing.T) {
	integration.NeedRoot(t)
	for _, tool := range []string{"ip", "unshare", "sshd", "iptables", "tc", "find", "sha256sum"} {
		integration.NeedCommand(t, tool)
	}
	// The binary uploaded to the nodes must be a real faultline (the delay
	// agent runs it); FAULTLINE_BINARY reaches the controller child too.
	t.Setenv("FAULTLINE_BINARY", buildFaultline(t))
	st := testcluster.Up(t, healFilesClusterConfig)
	pool := testcluster.Pool(t, st)
	sshArgs := []string{"--nodes-file", st.NodesFile, "--known-hosts", st.KnownHosts, "--ssh-key", st.ClientKey}
	caps, err := nemesis.Capabilities(context.Background(), pool, nodeNamesOf(pool))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodeNamesOf(pool) {
		integration.Need(t, caps[n].Netem != "yes" && caps[n].NFQueue == "yes",
			"a kernel without netem and with NFQUEUE, so delay runs faultline's agent on "+n)
	}
	for _, n := range nodeNamesOf(pool) {
		onNode(t, pool, n, ownFilesScript, n)
	}
	before := onNodes(t, pool, filesScript)
	for n, s := range before {
		if strings.Contains(s, "faultline: ") {
			t.Fatalf("node %s holds faultline's files before any run:\n%s", n, s)
		}
	}
	compare := func(when string) {
		t.Helper()
		after := onNodes(t, pool, filesScript)
		for _, n := range nodeNamesOf(pool) {
			if d := lineDiff(before[n], after[n]); d != "" {
				t.Errorf("node %s %s: files differ from before the run:\n%s", n, when, d)
			}
		}
	}
	dir := t.TempDir()
	writeScript := func(name, interval, hold, duration string) string {
		p := filepath.Join(dir, name)
		src := strings.NewReplacer("INTERVAL", interval, "HOLD", hold, "DURATION", duration).Replace(healFilesScript)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// made lists, per node, faultline's files present now.
	made := func() map[string]string {
		out := map[string]string{}
		for n, s := range onNodes(t, pool, filesScript) {
			for _, l := range strings.Split(s, "\n") {
				if f, ok := strings.CutPrefix(l, "faultline: "); ok {
					out[n] += f + " "
				}
			}
		}
		return out
	}

	t.Run("run", func(t *testing.T) {
		script := writeScript("complete.star", "500ms", "1s", "4s")
		out := filepath.Join(dir, "complete")
		code, stdout, stderr := runCLI(t, append([]string{"run", script, "--realtime", "--seed", "1", "--out", out}, sshArgs...)...)
		if code != exitOK && code != exitFail && code != exitUnknown {
			t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
		}
		hist := filepath.Join(out, "*", "*", "artifacts", "made", "history.jsonl")
		paths, _ := filepath.Glob(hist)
		if len(paths) != 1 {
			t.Fatalf("want one history at %s, got %v", hist, paths)
		}
		if data, _ := os.ReadFile(paths[0]); !strings.Contains(string(data), `"nfqueue"`) {
			t.Fatalf("no delay ran by faultline's agent (a kernel with netem delays with a qdisc): the run made none of the agent's files\n%s", data)
		}
		compare("after a complete run")
	})

	t.Run("heal-after-killed-controller", func(t *testing.T) {
		script := writeScript("killed.star", "0s", "10m", "10m")
		logPath := filepath.Join(dir, "controller.log")
		logFile, err := os.Create(logPath)
		if err != nil {
			t.Fatal(err)
		}
		defer logFile.Close()
		cmd := faultlineCmd(append([]string{"run", script, "--realtime", "--seed", "2", "--out", filepath.Join(dir, "killed")}, sshArgs...)...)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killed := false
		defer func() {
			if !killed {
				cmd.Process.Kill()
				cmd.Wait()
			}
		}()
		// Wait for the binary and the agent's log on every node.
		deadline := time.Now().Add(90 * time.Second)
		for {
			m := made()
			all := len(m) == len(st.Nodes)
			for _, n := range nodeNamesOf(pool) {
				all = all && strings.Contains(m[n], control.BinDir+"/faultline-") && strings.Contains(m[n], "nfdelay.log")
			}
			if all {
				t.Logf("faultline's files on the nodes before the kill: %v", m)
				break
			}
			if time.Now().After(deadline) {
				log, _ := os.ReadFile(logPath)
				t.Fatalf("within 90s the nodes held only %v of faultline's files; the controller's output:\n%s", m, log)
			}
			time.Sleep(250 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		killed = true
		code, stdout, stderr := runCLI(t, append([]string{"heal"}, sshArgs...)...)
		if code != exitOK {
			t.Errorf("faultline heal: exit %d, want %d\n%s\n%s", code, exitOK, stdout, stderr)
		}
		t.Logf("faultline heal:\n%s", stdout)
		if strings.Count(stdout, "removed "+control.BinDir+"/faultline-") != len(st.Nodes) {
			t.Errorf("faultline heal does not report removing the binary from every node:\n%s", stdout)
		}
		compare("after a SIGKILLed controller and faultline heal")
	})
}
