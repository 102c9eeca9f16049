package stdlib_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
)

// loadOnNode loads body, which runs at load time with n = the local node
// n1 under root, and returns what it printed and the load error.
func loadOnNode(t *testing.T, root, body string) (string, error) {
	t.Helper()
	pool, sup, err := control.NewLocalPool(root, []string{"n1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close(); pool.Close() })
	src := `
load("@stdlib//db/daemon.star", "refuse_live", "re_escape")
load("@stdlib//db/demo.star", "demo_store")
load("@stdlib//db/etcd.star", "etcd")
n = control.nodes()[0]
` + body + `
scenario(name = "s", client = client.noop(), workload = gen.limit(1, {"f": "read"}), checker = check.stats())
`
	path := filepath.Join(t.TempDir(), "s.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err = interp.Load(context.Background(), path, interp.LoadOptions{Pool: pool, Print: &out})
	return out.String(), err
}

// re_escape makes a pattern that matches exactly its input, as the etcd
// recipe's teardown needs to find only its own member by data dir.
func TestReEscape(t *testing.T) {
	inputs := []string{"/usr/bin/etcd", "/opt/etcd.1/data", "a+b*c?", "(x)[y]{z}", "^start$", `back\slash`, "a|b", "plain"}
	var body strings.Builder
	for _, in := range inputs {
		fmt.Fprintf(&body, "print(re_escape(%q))\n", in)
	}
	out, err := loadOnNode(t, t.TempDir(), body.String())
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(inputs) {
		t.Fatalf("printed %q", out)
	}
	for i, in := range inputs {
		re, err := regexp.Compile("^" + got[i] + "$")
		if err != nil {
			t.Errorf("re_escape(%q) = %q: %v", in, got[i], err)
			continue
		}
		if !re.MatchString(in) {
			t.Errorf("re_escape(%q) = %q does not match its input", in, got[i])
		}
		// A change to any one character must not match: no metacharacter survived.
		for j := range in {
			other := in[:j] + "Z" + in[j+1:]
			if other != in && re.MatchString(other) {
				t.Errorf("re_escape(%q) = %q matches %q too", in, got[i], other)
			}
		}
	}
}

// refuse_live fails setup when the pid file names a live process (another
// run's daemon a recipe would otherwise adopt) and lets it go on otherwise.
func TestRefuseLive(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		pidfile string // content; "-" for no file
		wantErr string
	}{
		{"no pid file", "-", ""},
		{"empty", "", ""},
		{"not a pid", "abc\n", ""},
		{"dead pid", strconv.Itoa(dead.Process.Pid) + "\n", ""},
		{"live pid", strconv.Itoa(os.Getpid()) + "\n", "demo store on n1: demo/node.pid names a live process (pid " + strconv.Itoa(os.Getpid()) + "), left by an earlier run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if c.pidfile != "-" {
				if err := os.MkdirAll(filepath.Join(root, "n1", "demo"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, "n1", "demo", "node.pid"), []byte(c.pidfile), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := loadOnNode(t, root, `refuse_live(n, "demo/node.pid", "demo store")`)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("refuse_live: %v, want no error", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("refuse_live: %v, want an error containing %q", err, c.wantErr)
			}
		})
	}
}

// The recipes' teardowns run before every setup, so they must succeed on a
// node where nothing is set up, remove what their setup made, and leave
// everything else alone.
func TestRecipeTeardown(t *testing.T) {
	cases := []struct {
		name, call string
		dir        string   // the recipe's directory under the node
		made       []string // what its setup leaves (relative to dir)
	}{
		{"demo", `demo_store().teardown(n)`, "demo", []string{"data/raft.db", "run.sh", "node.log", "node.pid"}},
		{"etcd", `etcd(data_dir = %q).teardown(n)`, "etcd", []string{"data/member/wal/0.wal", "run.sh", "etcd.log", "etcd.pid"}},
	}
	for _, c := range cases {
		for _, state := range []string{"nothing there", "set up", "set up beside a file of its own"} {
			t.Run(c.name+"/"+state, func(t *testing.T) {
				root := t.TempDir()
				node := filepath.Join(root, "n1")
				dir := filepath.Join(node, c.dir)
				call := c.call
				if strings.Contains(call, "%q") {
					call = fmt.Sprintf(call, dir) // etcd's data_dir is absolute
				}
				if state != "nothing there" {
					for _, f := range c.made {
						p := filepath.Join(dir, f)
						if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
							t.Fatal(err)
						}
						// A dead pid in the pid file: a daemon that already exited.
						if err := os.WriteFile(p, []byte("999999999\n"), 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
				foreign := filepath.Join(dir, "not-faultlines.txt")
				if state == "set up beside a file of its own" {
					if err := os.WriteFile(foreign, []byte("keep"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := loadOnNode(t, root, call); err != nil {
					t.Fatalf("teardown: %v", err)
				}
				for _, f := range c.made {
					if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
						t.Errorf("%s left after teardown", f)
					}
				}
				_, dirErr := os.Stat(dir)
				if state == "set up beside a file of its own" {
					if data, err := os.ReadFile(foreign); err != nil || string(data) != "keep" {
						t.Errorf("teardown touched a file it did not make: %q, %v", data, err)
					}
				} else if dirErr == nil {
					t.Errorf("the recipe's own, now empty, directory %s is left", dir)
				}
			})
		}
	}
}

// The etcd recipe's kill pattern (what its kill and pause faults signal)
// matches its own members on any node and never another etcd there.
func TestEtcdKillPatternIsItsOwn(t *testing.T) {
	out, err := loadOnNode(t, t.TempDir(), `print(etcd(data_dir = "/opt/fl etcd").kill_pattern)`)
	if err != nil {
		t.Fatal(err)
	}
	re, err := regexp.Compile(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("pattern %q: %v", out, err)
	}
	cases := map[string]bool{
		"/usr/bin/etcd --name n1 --data-dir /opt/fl etcd/data --listen-peer-urls http://10.0.0.1:2380": true,
		"/usr/bin/etcd --name n3 --data-dir /opt/fl etcd/data":                                         true,
		"/usr/bin/etcd --name n1 --data-dir /var/lib/etcd --listen-peer-urls http://10.0.0.1:2380":     false,
		"/usr/bin/etcd --name n1 --data-dir /opt/fl etcd/data2":                                        false,
		"/usr/bin/etcd": false,
		"sh -c /usr/bin/etcd --name n1 --data-dir /opt/fl etcd/data": false,
	}
	for cmdline, want := range cases {
		if got := re.MatchString(cmdline); got != want {
			t.Errorf("%q matches %q: %v, want %v", re, cmdline, got, want)
		}
	}
}
