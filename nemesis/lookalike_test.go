package nemesis

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/integration"
)

// lookalikeClusterConfig is the cluster of TestNodeOwnProcessesAndFiles alone.
var lookalikeClusterConfig = cluster.Config{Nodes: 3, Prefix: "flk", Subnet: "10.74.0.0/24",
	StateDir: "/var/lib/faultline-test-lookalike/cluster"}

// lookalikes are the node's own processes, named so the demo recipe's
// pattern (demo-node) matches every one, as on the node the issue was found
// on: an exporter, a standby, and a second member the node stopped itself
// (SIGSTOP) and means to keep stopped.
var lookalikes = []struct {
	name    string
	argv    string // after perl -e sleep
	stopped bool
}{
	{"exporter", "demo-node-exporter --port 9100", false},
	{"standby", "demo-node-standby --id standby", false},
	{"stopped", "demo-node --id held", true},
}

// plantScript starts one look-alike ($1: its arguments after perl's) the
// way a node's own service manager would, not through faultline, stops it
// if $2 is "stop", and prints its pid.
const plantScript = `nohup perl -e 'use POSIX (); POSIX::setsid(); sleep' $1 </dev/null >/dev/null 2>&1 &
pid=$!
i=0; while [ "$(cat /proc/$pid/comm 2>/dev/null)" != perl ]; do
  [ $i -lt 100 ] || { echo "look-alike $pid never ran perl" >&2; exit 1; }; sleep 0.1; i=$((i+1))
done
if [ "$2" = stop ]; then
  kill -s STOP "$pid" || exit 1
  i=0; while [ "$(sed 's/.*) //' /proc/$pid/stat 2>/dev/null | cut -d' ' -f1)" != T ]; do
    [ $i -lt 100 ] || { echo "look-alike $pid never stopped" >&2; exit 1; }; sleep 0.1; i=$((i+1))
  done
fi
echo "$pid"`

// sampleScript prints, for each pid given, "PID STATE STARTTIME" (state
// "gone" when it no longer runs), then the sha256 of the node's own files.
const sampleScript = `for p; do
  s=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1,20)
  echo "$p ${s:-gone}"
done
for f in /opt/flk/own.conf /opt/flk/data.db; do echo "$f $(sha256sum <"$f" 2>/dev/null | cut -d' ' -f1)"; done`

// The node's own processes and files are its own, whatever their names:
// with look-alikes of the demo store's daemon planted beside faultline's on
// every node (one the node stopped itself) and a file of the node's beside
// faultline's, every built-in process and disk fault and heal (kill and
// its restart, pause and resume, fill_disk and free_disk, HealAll with a
// pause outstanding, and the heal of what a run started) acts on
// faultline's alone. Each is sampled during every fault and after heal:
// alive, in the state the node left it, the same process (start time), the
// file byte for byte the same.
func TestNodeOwnProcessesAndFiles(t *testing.T) {
	_, pool := upClusterWith(t, lookalikeClusterConfig)
	integration.NeedCommand(t, "perl")
	ctx := context.Background()
	if _, err := HealAll(ctx, pool); err != nil {
		t.Fatalf("initial heal: %v", err)
	}
	nodes := nodeNames(pool)
	const pidfile = "/opt/flk/node.pid"
	daemon := func(node string) []string {
		return []string{"perl", "-e", "sleep", "demo-node", "--id", node}
	}
	// own[node][name] is the pid of a look-alike; startSample the sample
	// taken once all are planted.
	own := map[string]map[string]string{}
	startSample := map[string]map[string]string{}
	sample := func(node string) map[string]string {
		t.Helper()
		var pids []string
		for _, l := range lookalikes {
			pids = append(pids, own[node][l.name])
		}
		out := onNode(t, pool, node, "sample the node's own", sampleScript, pids...)
		got := map[string]string{}
		for _, line := range nonEmpty(out) {
			k, v, _ := strings.Cut(line, " ")
			got[k] = v
		}
		return got
	}
	untouched := func(what string) {
		t.Helper()
		for _, n := range nodes {
			if got := sample(n); !maps.Equal(got, startSample[n]) {
				t.Errorf("%s: the node's own processes or files on %s changed\nbefore: %v\nnow:    %v", what, n, startSample[n], got)
			}
		}
	}
	for _, n := range nodes {
		onNode(t, pool, n, "the node's own files", `mkdir -p /opt/flk && printf 'listen = 7000\nrole = primary\n' >/opt/flk/own.conf && head -c 4096 /dev/urandom >/opt/flk/data.db`)
		own[n] = map[string]string{}
		for _, l := range lookalikes {
			mode := ""
			if l.stopped {
				mode = "stop"
			}
			own[n][l.name] = strings.TrimSpace(onNode(t, pool, n, "plant "+l.name, plantScript, l.argv, mode))
		}
		r, err := pool.Remote(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := control.StartDaemon(ctx, r, control.Daemon{Argv: daemon(n), Pidfile: pidfile}); err != nil {
			t.Fatal(err)
		}
		startSample[n] = sample(n)
		for _, l := range lookalikes {
			want := "S"
			if l.stopped {
				want = "T"
			}
			if st := startSample[n][own[n][l.name]]; !strings.HasPrefix(st, want+" ") {
				t.Fatalf("%s: planted %s is %q, want state %s", n, l.name, st, want)
			}
		}
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			var pids []string
			for _, p := range own[n] {
				pids = append(pids, p)
			}
			r, err := pool.Remote(ctx, n)
			if err == nil {
				runScript(ctx, r, "remove the look-alikes", `kill -s KILL "$@" 2>/dev/null; rm -rf /opt/flk; true`, pids...)
			}
		}
	})
	untouched("after planting")

	w, err := New(Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	// ours reads back faultline's daemon on node: its pid and state.
	ours := func(node string) (string, string) {
		t.Helper()
		out := onNode(t, pool, node, "faultline's daemon", `p=$(cat "$1" 2>/dev/null); s=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1); echo "$p ${s:-gone}"`, pidfile)
		p, s, _ := strings.Cut(strings.TrimSpace(out), " ")
		return p, s
	}
	invoke := func(f string, v map[string]any, wantLanded bool) map[string]any {
		t.Helper()
		c := w.Invoke(ctx, opF(f, v))
		if c.Extra["landed"] != wantLanded {
			t.Fatalf("%s %v: %+v, want landed %v", f, v, c, wantLanded)
		}
		return c.Extra
	}
	// leftAlone checks the evidence names every look-alike as left alone.
	leftAlone := func(what string, extra map[string]any) {
		t.Helper()
		for _, n := range nodes {
			got := fmt.Sprint(evidenceOf(t, extra, n)["left_alone"])
			for _, l := range lookalikes {
				if !strings.Contains(got, own[n][l.name]) {
					t.Errorf("%s on %s: evidence left_alone %s lacks the %s (pid %s)", what, n, got, l.name, own[n][l.name])
				}
			}
		}
	}
	restart := []any{"perl", "-e", "sleep", "demo-node", "--id", "restarted"}
	for _, withPidfile := range []bool{true, false} {
		name := map[bool]string{true: "by pid file", false: "by faultline's mark"}[withPidfile]
		t.Run("kill and start "+name, func(t *testing.T) {
			v := map[string]any{"nodes": "all", "pattern": "demo-node", "restart": restart}
			if withPidfile {
				v["pidfile"] = pidfile
			}
			before := map[string]string{}
			for _, n := range nodes {
				before[n], _ = ours(n)
			}
			ex := invoke("kill", v, true)
			leftAlone("kill", ex)
			for _, n := range nodes {
				pids := evidenceOf(t, ex, n)["pids"].(map[string]any)
				if len(pids) != 1 || pids[before[n]] != "gone" {
					t.Errorf("kill on %s: %v, want faultline's daemon %s gone and nothing else", n, pids, before[n])
				}
			}
			untouched("during kill " + name)
			ex = invoke("start", map[string]any{"nodes": "all", "pattern": "demo-node", "restart": restart, "pidfile": pidfile}, true)
			for _, n := range nodes {
				if p, s := ours(n); p == before[n] || s != "S" {
					t.Errorf("start on %s: faultline's daemon is pid %s in state %s, want a new one running", n, p, s)
				}
			}
			untouched("after start " + name)
		})
	}
	t.Run("pause and resume", func(t *testing.T) {
		// As the stdlib's pause: a pattern and no pid file.
		v := map[string]any{"nodes": "all", "pattern": "demo-node"}
		ex := invoke("pause", v, true)
		leftAlone("pause", ex)
		for _, n := range nodes {
			if p, s := ours(n); s != "T" || len(evidenceOf(t, ex, n)["pids"].(map[string]any)) != 1 {
				t.Errorf("pause on %s: faultline's daemon %s in state %s, evidence %v; want it alone stopped", n, p, s, evidenceOf(t, ex, n))
			}
		}
		untouched("during pause")
		ex = invoke("resume", v, true)
		for _, n := range nodes {
			if p, s := ours(n); s != "S" {
				t.Errorf("resume on %s: faultline's daemon %s in state %s, want running", n, p, s)
			}
			if pids := evidenceOf(t, ex, n)["pids"].(map[string]any); len(pids) != 1 {
				t.Errorf("resume on %s continued %v, want faultline's daemon alone", n, pids)
			}
		}
		untouched("after resume (the node's stopped look-alike must stay stopped)")
	})
	t.Run("pause healed by HealAll", func(t *testing.T) {
		invoke("pause", map[string]any{"nodes": "all", "pattern": "demo-node"}, true)
		untouched("during pause")
		rep, err := HealAll(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			p, s := ours(n)
			if s != "S" {
				t.Errorf("HealAll on %s left faultline's daemon %s in state %s", n, p, s)
			}
			if got := strings.Join(rep[n], "; "); got != "resumed "+p {
				t.Errorf("HealAll on %s: %q, want only faultline's daemon resumed (resumed %s)", n, got, p)
			}
		}
		untouched("after HealAll")
	})
	t.Run("fill_disk", func(t *testing.T) {
		// A path that exists is the node's: refused, untouched.
		c := w.Invoke(ctx, opF("fill-disk", map[string]any{"nodes": "all", "path": "/opt/flk/own.conf", "size": "1M"}))
		if c.Type == "ok" || c.Extra["landed"] != false || !strings.Contains(fmt.Sprint(c.Error), "/opt/flk/own.conf exists and faultline did not create it") {
			t.Errorf("fill-disk on the node's own file: %+v, want it refused, naming the file", c)
		}
		untouched("after fill-disk of the node's own file")
		w.Invoke(ctx, opF("free-disk", nil))
		untouched("after free-disk of the refused fill")
		// A new path beside the node's files: filled, then freed.
		invoke("fill-disk", map[string]any{"nodes": "all", "path": "/opt/flk/fill", "size": "1M"}, true)
		untouched("during fill-disk")
		ex := invoke("free-disk", nil, true)
		if ex["healed"] != true {
			t.Errorf("free-disk: %v", ex)
		}
		// Filled again and abandoned: HealAll removes faultline's file alone.
		invoke("fill-disk", map[string]any{"nodes": "all", "path": "/opt/flk/fill", "size": "1M"}, true)
		if _, err := HealAll(ctx, pool); err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if out := onNode(t, pool, n, "list", `ls /opt/flk`); strings.Fields(out)[0] != "data.db" || strings.Contains(out, "fill") {
				t.Errorf("%s: /opt/flk holds %q after heal", n, out)
			}
		}
		untouched("after the fill's heal")
	})
	t.Run("file faults kept and restored", func(t *testing.T) {
		// Aimed at the node's own file: the damage lasts the run (HealAll
		// leaves it: it is the system's to face), and is put back byte for
		// byte when the run is over, latest first.
		invoke("truncate-file", map[string]any{"nodes": "all", "path": "/opt/flk/data.db", "size": int64(100)}, true)
		invoke("bitflip-file", map[string]any{"nodes": "all", "path": "/opt/flk/data.db", "offset": int64(7), "bit": int64(3)}, true)
		invoke("truncate-file", map[string]any{"nodes": "all", "path": "/opt/flk/own.conf", "size": int64(9000)}, true) // longer: zeros added
		if _, err := HealAll(ctx, pool); err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if s := sample(n); s["/opt/flk/data.db"] == startSample[n]["/opt/flk/data.db"] || s["/opt/flk/own.conf"] == startSample[n]["/opt/flk/own.conf"] {
				t.Fatalf("%s: the files are as before the faults after HealAll: the faults did not land or were healed mid-run", n)
			}
		}
		rep, err := RestoreKept(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			want := []string{"restored /opt/flk/own.conf", "restored /opt/flk/data.db", "restored /opt/flk/data.db"}
			if !slices.Equal(rep[n], want) {
				t.Errorf("RestoreKept on %s: %q, want %q", n, rep[n], want)
			}
		}
		untouched("after the file faults were restored")
		// One the system rewrote after the fault is the system's: left.
		invoke("bitflip-file", map[string]any{"nodes": []any{"n1"}, "path": "/opt/flk/own.conf", "offset": int64(0), "bit": int64(0)}, true)
		onNode(t, pool, "n1", "rewrite", `printf 'listen = 7000\nrole = primary\n' >/opt/flk/own.conf`)
		if rep, err := RestoreKept(ctx, pool); err != nil || !slices.Equal(rep["n1"], []string{"left /opt/flk/own.conf as it is: changed since the fault"}) {
			t.Errorf("RestoreKept of a rewritten file: %v %q", err, rep)
		}
		if out := onNode(t, pool, "n1", "kept dirs", `ls -d `+KeptDir+`* 2>/dev/null; true`); strings.TrimSpace(out) != "" {
			t.Errorf("kept directories remain after restore: %s", out)
		}
		untouched("after a rewritten file was left")
	})
	t.Run("heal stops what faultline started", func(t *testing.T) {
		for _, n := range nodes {
			p, _ := ours(n)
			r, err := pool.Remote(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			stopped, err := control.StopStarted(ctx, r, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if len(stopped) != 1 || !strings.HasPrefix(stopped[0], "stopped daemon "+p+" perl -e sleep demo-node") {
				t.Errorf("StopStarted on %s: %q, want faultline's daemon %s alone", n, stopped, p)
			}
			if _, s := ours(n); s != "gone" {
				t.Errorf("StopStarted on %s left faultline's daemon in state %s", n, s)
			}
		}
		untouched("after heal stopped faultline's daemons")
	})
}
