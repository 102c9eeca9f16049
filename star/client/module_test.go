package client

import (
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/client"
)

func TestModule(t *testing.T) {
	cases := []struct {
		src     string
		wantErr string
		want    string
	}{
		{"c = client.register()", "", "client.register()"},
		{"c = client.register(stale_reads = 0.25)", "", "client.register(stale_reads=0.25)"},
		{"c = client.register(stale_reads = 2)", "between 0 and 1", ""},
		{"c = client.noop()", "", "client.noop()"},
		{"c = client.demo_kv()", "", `client.demo_kv(timeout="1s")`},
		{`c = client.demo_kv(timeout = "250ms")`, "", `client.demo_kv(timeout="250ms")`},
		{"c = client.demo_kv(timeout = 2)", "", `client.demo_kv(timeout="2s")`},
		{"c = client.demo_kv(timeout = 0)", "positive", ""},
		{"c = client.demo_kv(port = 9000)", "", `client.demo_kv(timeout="1s", port=9000)`},
		{"c = client.demo_kv(port = 0)", "out of range", ""},
		{"c = client.demo_kv(endpoints = [])", "unexpected keyword", ""},
		{`c = client.exec(argv = ["sh", "op.sh"])`, "", `client.exec(argv=["sh", "op.sh"])`},
		{`c = client.exec(argv = ["op"], timeout = "2s", env = {"PW": "secret"}, service = "http", port = 8080)`, "",
			`client.exec(argv=["op"], timeout="2s", service="http", port=8080)`},
		{`c = client.exec(argv = [])`, "argv must name a command", ""},
		{`c = client.exec(argv = ["op", 1])`, "argv[1] must be a string", ""},
		{`c = client.exec(argv = ["op"], timeout = 0)`, "positive", ""},
		{`c = client.exec(argv = ["op"], port = 80)`, "port needs service", ""},
		{`c = client.exec(argv = ["op"], service = "http")`, "out of range", ""},
		{`c = client.exec(argv = ["op"], env = {"A-B": "1"})`, "not a shell identifier", ""},
		{`c = client.exec(argv = ["op"], env = {"A": 1})`, "env must map strings to strings", ""},
		{`c = client.process(argv = ["python3", "client.py"])`, "", `client.process(argv=["python3", "client.py"])`},
		{`c = client.process(argv = ["c"], timeout = "2s", env = {"PW": "secret"}, service = "http", port = 8080)`, "",
			`client.process(argv=["c"], timeout="2s", service="http", port=8080)`},
		{`c = client.process(argv = [])`, "argv must name a command", ""},
		{`c = client.process(argv = ["c", 1])`, "argv[1] must be a string", ""},
		{`c = client.process(argv = ["c"], timeout = 0)`, "positive", ""},
		{`c = client.process(argv = ["c"], port = 80)`, "port needs service", ""},
		{`c = client.process(argv = ["c"], env = {"A": 1})`, "env must map strings to strings", ""},
	}
	for _, c := range cases {
		globals, err := starlark.ExecFileOptions(&syntax.FileOptions{}, &starlark.Thread{}, "t.star", c.src,
			starlark.StringDict{"client": Module})
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err = %v, want %q", c.src, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := globals["c"].String(); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}

// client.process resolves its working directory against the directory of
// the file that calls it, so argv can name a script beside the suite.
func TestNewProcessDir(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{`c = client.process(argv = ["python3", "client.py"])`, dir},
		{`c = client.process(argv = ["python3", "client.py"], dir = "sub")`, filepath.Join(dir, "sub")},
		{`c = client.process(argv = ["python3", "client.py"], dir = "/abs")`, "/abs"},
	} {
		globals, err := starlark.ExecFileOptions(&syntax.FileOptions{}, &starlark.Thread{}, filepath.Join(dir, "suite.star"), c.src,
			starlark.StringDict{"client": Module})
		if err != nil {
			t.Fatal(err)
		}
		cl, _ := FromStarlark(globals["c"])
		if got := cl.(*client.Process).Dir; got != c.want {
			t.Errorf("%s: dir %q, want %q", c.src, got, c.want)
		}
	}
}

func TestNewPostgres(t *testing.T) {
	tests := []struct {
		src     string
		want    string // String() of the client, or the error substring
		wantErr bool
	}{
		{`client.postgres(dsn = "postgres://u@127.0.0.1:5432/db")`,
			`client.postgres(isolation="serializable", workload="list-append")`, false},
		{`client.postgres("postgres://u:secret@127.0.0.1/db", isolation = "read-committed", workload = "bank", accounts = 3, total = 30)`,
			`client.postgres(isolation="read-committed", workload="bank", accounts=3, total=30)`, false},
		{`client.postgres(dsn = "postgres://127.0.0.1/db", isolation = "snapshot")`, `unknown isolation "snapshot"`, true},
		{`client.postgres(dsn = "postgres://127.0.0.1/db", workload = "queue")`, `unknown workload "queue"`, true},
		{`client.postgres(dsn = "postgres://127.0.0.1/db", workload = "bank", accounts = 1)`, "at least 2 accounts", true},
		{`client.postgres(dsn = "postgres://127.0.0.1/db", workload = "bank", total = -1)`, "must not be negative", true},
		{`client.postgres(dsn = "")`, "dsn is required", true},
		{`client.postgres(dsn = "postgres://127.0.0.1:notaport/db")`, "dsn", true},
	}
	for _, tt := range tests {
		v, err := starlark.EvalOptions(&syntax.FileOptions{}, &starlark.Thread{}, "test", tt.src, starlark.StringDict{"client": Module})
		if tt.wantErr {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: err = %v, want one containing %q", tt.src, err, tt.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		c, ok := FromStarlark(v)
		if !ok || c.Simulated() || v.String() != tt.want {
			t.Errorf("%s = %v (simulated %v), want %s", tt.src, v, ok && c.Simulated(), tt.want)
		}
		if strings.Contains(v.String(), "secret") {
			t.Errorf("%s: the client's string form leaks the password: %s", tt.src, v)
		}
	}
}
