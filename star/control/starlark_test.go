package control

import (
	"bytes"
	"context"
	"errors"
	goldenfile "github.com/faultline/faultline/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/internal/integration"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/testdaemon"
	"github.com/faultline/faultline/star"
)

// runScript executes src with the control module, pool and ctx bound the way
// the interpreter binds them, and returns the globals.
func runScript(ctx context.Context, t *testing.T, p *control.Pool, src string) (starlark.StringDict, error) {
	t.Helper()
	thread := &starlark.Thread{Name: "test", Print: func(_ *starlark.Thread, msg string) { t.Log(msg) }}
	star.SetContext(thread, ctx)
	if p != nil {
		star.SetPool(thread, p)
	}
	predeclared := starlark.StringDict{"control": Module}
	return starlark.ExecFileOptions(&syntax.FileOptions{TopLevelControl: true, While: true}, thread, "test.star", src, predeclared)
}

func localPool(t *testing.T, names ...string) *control.Pool {
	t.Helper()
	var nodes []control.Node
	for _, n := range names {
		nodes = append(nodes, control.Node{Name: n, Host: "127.0.0.1"})
	}
	p, err := control.NewPool(nodes, control.LocalDialer())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestStarlarkNodeMethods(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	if err := os.WriteFile(src, []byte("payload"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := testdaemon.FreePort(t)
	argv := testdaemon.Argv(t, "starlark-daemon")
	script := `
n = control.node("n1")
info = (n.name, n.host, n.port, str(n), type(n))
r = n.exec("printf", "%s|", "a b", "$x", 7)
argv_list = n.exec(["echo", "from", "list"]).stdout
raw = n.exec(raw = "echo $((2*21))").stdout.strip()
cd = n.exec("pwd", dir = DIR).stdout.strip()
env = n.exec(raw = 'echo "$K"', env = {"K": "v w"}).stdout
fail = n.exec(raw = "echo o; echo e >&2; exit 4", check = False)
stdin = n.exec("cat", stdin = "in").stdout
n.upload(DIR + "/src.txt", DIR + "/up.txt")
n.download(DIR + "/up.txt", DIR + "/down.txt")
copied = n.exec("cat", DIR + "/down.txt").stdout
ex = (n.exists(DIR + "/up.txt"), n.exists(DIR + "/nope"))
pid = n.start_daemon(ARGV, pidfile = DIR + "/d.pid", logfile = DIR + "/d.log", chdir = DIR, env = {"` + testdaemon.EnvListen + `": PORT})
n.await_port(int(PORT), timeout = "20s")
signalled = (n.signal(pid, "CONT"), n.signal("starlark-daemon", sig = "CONT"))
stopped = n.stop_daemon(DIR + "/d.pid")
same = control.node("n1") == n and {n: 1}[control.node("n1")] == 1
names = [x.name for x in control.nodes()]
`
	p := localPool(t, "n1", "n2")
	script = strings.NewReplacer("DIR", starlark.String(dir).String(), "ARGV", toStarlarkList(argv), "PORT", `"`+itoa(port)+`"`).Replace(script)
	g, err := runScript(context.Background(), t, p, script)
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	want := map[string]string{
		"info":      `("n1", "127.0.0.1", 0, "node(\"n1\")", "node")`,
		"r":         `struct(exit = 0, stderr = "", stdout = "a b|$x|7|")`,
		"argv_list": `"from list\n"`,
		"raw":       `"42"`,
		"cd":        starlark.String(dir).String(),
		"env":       `"v w\n"`,
		"fail":      `struct(exit = 4, stderr = "e\n", stdout = "o\n")`,
		"stdin":     `"in"`,
		"copied":    `"payload"`,
		"ex":        `(True, False)`,
		"signalled": `(1, 1)`,
		"stopped":   `True`,
		"same":      `True`,
		"names":     `["n1", "n2"]`,
	}
	for k, v := range want {
		if got := g[k].String(); got != v {
			t.Errorf("%s = %s, want %s", k, got, v)
		}
	}
	if pid, _ := starlark.AsInt32(g["pid"]); pid <= 0 || testdaemon.Alive(pid) {
		t.Errorf("daemon pid %v: want a positive pid that is no longer running", g["pid"])
	}
}

func TestStarlarkSudo(t *testing.T) {
	integration.NeedRoot(t) // as root, sudo is skipped; sudo itself may be absent
	g, err := runScript(context.Background(), t, localPool(t, "n1"), `uid = control.node("n1").sudo("id", "-u").stdout`)
	if err != nil || g["uid"].String() != `"0\n"` {
		t.Fatalf("sudo id -u = %v, %v", g["uid"], err)
	}
}

func toStarlarkList(ss []string) string {
	var b strings.Builder
	b.WriteString("[")
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(starlark.String(s).String())
	}
	b.WriteString("]")
	return b.String()
}

func itoa(i int) string { return starlark.MakeInt(i).String() }

func TestStarlarkErrors(t *testing.T) {
	p := localPool(t, "n1")
	tests := []struct{ script, msg string }{
		{`control.node("n9")`, `unknown node "n9"`},
		{`control.node("n1").exec("false")`, "exec: node n1: command false exited 1"},
		{`control.node("n1").exec(raw = "exit 2", check = True)`, "exited 2"},
		{`control.node("n1").exec("a", raw = "b")`, "both Argv and Raw"},
		{`control.node("n1").exec()`, "empty command"},
		{`control.node("n1").exec(1.5)`, "want a string or int"},
		{`control.node("n1").exec("x", env = {"A-B": "1"})`, "not a shell identifier"},
		{`control.node("n1").exec("x", env = {1: "1"})`, "want a string"},
		{`control.node("n1").exec("x", timeout = "soon")`, "bad duration"},
		{`control.node("n1").signal(1.5)`, "want a pid or a command-line pattern"},
		{`control.node("n1").signal(-3)`, "bad pid"},
		{`control.node("n1").signal("x", "NOSUCH")`, "unknown signal"},
		{`control.node("n1").signal("")`, "empty pattern"},
		{`control.node("n1").await_port(0)`, "out of range"},
		{`control.node("n1").start_daemon([])`, "empty command"},
		{`control.node("n1").stop_daemon("")`, "no pid file"},
		{`control.node("n1").nope`, "no .nope field or method"},
		{`control.node("n1") < control.node("n1")`, "only == and !="},
		{`control.on_nodes(1)`, "fn must be callable"},
		{`control.on_nodes("n1", lambda n: 1)`, "must be a list"},
		{`control.on_nodes(["n1", "n1"], lambda n: 1)`, "listed twice"},
		{`control.on_nodes([3], lambda n: 1)`, "want a node or a node name"},
	}
	for _, tt := range tests {
		_, err := runScript(context.Background(), t, p, tt.script)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: err = %v, want %q", tt.script, err, tt.msg)
		}
	}
	if _, err := runScript(context.Background(), t, nil, `control.nodes()`); err == nil || !strings.Contains(err.Error(), "no nodes configured") {
		t.Errorf("without a pool: err = %v", err)
	}
}

func TestOnNodes(t *testing.T) {
	p := localPool(t, "n1", "n2", "n3")
	g, err := runScript(context.Background(), t, p, `
def hostname_of(n):
    return n.name + ":" + n.exec("echo", n.name).stdout.strip()
all = control.on_nodes(hostname_of)
some = control.on_nodes(["n3", control.node("n1")], lambda n: n.name)
nested = control.on_nodes(lambda n: len(control.on_nodes(lambda m: m.name)))
`)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"all":    `{"n1": "n1:n1", "n2": "n2:n2", "n3": "n3:n3"}`,
		"some":   `{"n3": "n3", "n1": "n1"}`,
		"nested": `{"n1": 3, "n2": 3, "n3": 3}`,
	} {
		if got := g[k].String(); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
}

// TestOnNodesParallel proves the calls overlap: each waits until all three
// have started, which only completes if they run at the same time.
func TestOnNodesParallel(t *testing.T) {
	p := localPool(t, "n1", "n2", "n3")
	dir := t.TempDir()
	script := `
def meet(n):
    n.exec("touch", DIR + "/" + n.name)
    n.exec(raw = "while [ $(ls DIR_RAW | wc -l) -lt 3 ]; do sleep 0.05; done", timeout = "20s")
    return True
res = control.on_nodes(meet)
`
	script = strings.NewReplacer("DIR_RAW", control.Quote(dir), "DIR", starlark.String(dir).String()).Replace(script)
	if _, err := runScript(context.Background(), t, p, script); err != nil {
		t.Fatal(err)
	}
}

func TestOnNodesErrorsNameNodes(t *testing.T) {
	p := localPool(t, "n1", "n2", "n3")
	_, err := runScript(context.Background(), t, p, `
def f(n):
    if n.name != "n2":
        n.exec("sh", "-c", "exit 7")
    return 1
control.on_nodes(f)
`)
	if err == nil {
		t.Fatal("on_nodes succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"2 of 3 nodes failed", "node n1: exec: node n1: command", "node n3:", "exited 7"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "node n2") {
		t.Errorf("error %q names the node that succeeded", msg)
	}
	var ee *control.ExitError
	if !errors.As(err, &ee) {
		t.Errorf("the *control.ExitError is not reachable through the Starlark error: %v", err)
	}
}

// TestOnNodesFreezes checks that fn's captured state is frozen, so parallel
// calls cannot race on it.
func TestOnNodesFreezes(t *testing.T) {
	p := localPool(t, "n1", "n2")
	_, err := runScript(context.Background(), t, p, `
seen = []
def f(n):
    seen.append(n.name)
control.on_nodes(f)
`)
	if err == nil || !strings.Contains(err.Error(), "frozen") {
		t.Fatalf("err = %v, want a frozen-list error", err)
	}
}

func TestStarlarkCancel(t *testing.T) {
	p := localPool(t, "n1", "n2")
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	ctx := testdaemon.CancelOnFile(t, started)
	var err error
	testdaemon.Within(t, 30*time.Second, "on_nodes after cancel", func() {
		_, err = runScript(ctx, t, p, `control.on_nodes(lambda n: n.exec(raw = "touch `+control.Quote(started)+`; sleep 60"))`)
	})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, control.ErrIndeterminate) {
		t.Fatalf("err = %v, want cancelled and indeterminate", err)
	}
}

// TestDryRunGolden runs a script against dry-run remotes; the log it
// produces is what a plan preview shows.
func TestDryRunGolden(t *testing.T) {
	var log bytes.Buffer
	p, err := control.NewPool([]control.Node{{Name: "n1", Host: "10.77.0.1"}, {Name: "n2", Host: "10.77.0.2"}}, control.DryRunDialer(&log))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	g, err := runScript(context.Background(), t, p, `
for n in control.nodes():
    n.exec("mkdir", "-p", "/opt/etcd data")
    n.sudo(raw = "apt-get install -y etcd-server", env = {"DEBIAN_FRONTEND": "noninteractive"}, timeout = "5m")
    n.upload("bin/etcd", "/opt/etcd/etcd")
    pid = n.start_daemon(["/opt/etcd/etcd", "--name", n.name], pidfile = "/opt/etcd/pid", logfile = "/opt/etcd/log", chdir = "/opt/etcd")
    n.await_port(2379)
    n.signal("etcd", "STOP")
    n.stop_daemon("/opt/etcd/pid", signal = "KILL")
    n.download("/opt/etcd/log", "logs/" + n.name + ".log")
result = (pid, n.exists("/x"))
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := g["result"].String(); got != "(0, True)" {
		t.Errorf("dry-run results = %s, want (0, True)", got)
	}
	golden := filepath.Join("testdata", "dryrun.golden")
	if goldenfile.Updating() {
		if err := os.WriteFile(golden, log.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("golden file (run with -update to create): %v", err)
	}
	if log.String() != string(want) {
		t.Errorf("dry-run log differs from %s:\n%s", golden, log.String())
	}
}

func TestDryRunRemote(t *testing.T) {
	d := control.DryRun("n1", nil)
	if _, err := d.Run(context.Background(), control.Cmd{Argv: []string{"a\x00"}}); err == nil {
		t.Error("a NUL byte passed the dry run")
	}
	if _, err := d.Run(context.Background(), control.Cmd{Argv: []string{"echo", "hi there"}, Sudo: true}); err != nil {
		t.Fatal(err)
	}
	if got := d.Commands(); len(got) != 1 || got[0] != "$ sudo -n -- echo 'hi there'" {
		t.Errorf("Commands() = %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Run(ctx, control.Cmd{Argv: []string{"x"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled dry run: %v", err)
	}
}

func TestPool(t *testing.T) {
	dials := 0
	p, err := control.NewPool([]control.Node{{Name: "a", Host: "h"}}, func(_ context.Context, n control.Node) (control.Remote, error) {
		dials++
		if dials == 1 {
			return nil, errors.New("unreachable")
		}
		return control.DryRun(n.Name, nil), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.Remote(ctx, "a"); err == nil {
		t.Fatal("first dial should fail")
	}
	r1, err := p.Remote(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if r2, _ := p.Remote(ctx, "a"); r2 != r1 || dials != 2 {
		t.Errorf("remote not reused: dials = %d", dials)
	}
	if _, err := p.Remote(ctx, "b"); err == nil {
		t.Error("unknown node accepted")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Remote(ctx, "a"); !errors.Is(err, control.ErrClosed) {
		t.Errorf("Remote after Close: %v", err)
	}
	if _, err := control.NewPool([]control.Node{{Name: "a"}, {Name: "a"}}, control.LocalDialer()); err == nil {
		t.Error("duplicate names accepted")
	}
}

func TestSignalName(t *testing.T) {
	for in, want := range map[string]string{"": "TERM", "TERM": "TERM", "sigkill": "KILL", "SIGSTOP": "STOP", "9": "KILL", "cont": "CONT"} {
		if got, err := control.SignalName(in); got != want || err != nil {
			t.Errorf("SignalName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"NOPE", "0", "999", "-1", "KILL; rm", "$(x)"} {
		if got, err := control.SignalName(in); err == nil {
			t.Errorf("SignalName(%q) = %q, want an error", in, got)
		}
	}
}
