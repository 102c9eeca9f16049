package interp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles lays out files (name -> content) under a temp dir and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const minimalScenario = `
scenario(name = "s", client = client.register(), workload = gen.limit(10, {"f": "read"}),
         checker = check.stats())
`

func TestLoadResolvesStdlibRelativeAndLibRoots(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star": `
load("@stdlib//workloads.star", "cas_register")
load("helpers/h.star", "n")
load("@mine//lib.star", "name")
scenario(name = name, client = client.register(), workload = gen.limit(n, cas_register()),
         checker = check.stats())
`,
		"helpers/h.star":      `load("deeper.star", "m")` + "\nn = m + 1\n",
		"helpers/deeper.star": "m = 9\n",
		"mylib/lib.star":      `name = "from_lib"` + "\n",
	})
	libs, err := ParseLibs([]string{"mine=" + filepath.Join(dir, "mylib")})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Libs: libs})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(s.Scenarios) != 1 || s.Scenarios[0].Name != "from_lib" {
		t.Fatalf("scenarios = %+v", s.Scenarios)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name     string
		files    map[string]string
		wantFile string // suffix of the file the error names
		wantLine int
		wantMsg  string
	}{
		{
			name:     "syntax error",
			files:    map[string]string{"main.star": "x = (\n"},
			wantFile: "main.star", wantLine: 2, wantMsg: "got end of file",
		},
		{
			name:     "undefined name",
			files:    map[string]string{"main.star": "\n\ny = nope\n"},
			wantFile: "main.star", wantLine: 3, wantMsg: "undefined: nope",
		},
		{
			name: "error inside a loaded file points at that file",
			files: map[string]string{
				"main.star": `load("lib.star", "f")` + "\n" + minimalScenario,
				"lib.star":  "def f():\n    pass\nz = 1 // 0\n",
			},
			wantFile: "lib.star", wantLine: 3, wantMsg: "division by zero",
		},
		{
			name: "cycle",
			files: map[string]string{
				"main.star": `load("a.star", "a")` + "\n",
				"a.star":    `load("b.star", "b")` + "\na = 1\n",
				"b.star":    `load("a.star", "a")` + "\nb = 1\n",
			},
			wantMsg: "cycle in load graph",
		},
		{
			name:     "unknown lib root",
			files:    map[string]string{"main.star": `load("@nope//x.star", "x")` + "\n"},
			wantFile: "main.star", wantLine: 1, wantMsg: "no library root @nope",
		},
		{
			name:    "absolute load path",
			files:   map[string]string{"main.star": `load("/etc/passwd", "x")` + "\n"},
			wantMsg: "absolute paths are not allowed",
		},
		{
			name:    "stdlib path leaving its root",
			files:   map[string]string{"main.star": `load("@stdlib//../main.star", "x")` + "\n"},
			wantMsg: "leaves the library root @stdlib",
		},
		{
			// Its content would show in the syntax error.
			name:    "a file that is not a module",
			files:   map[string]string{"main.star": `load("secret.txt", "x")` + "\n", "secret.txt": "password = hunter2\n"},
			wantMsg: "only .star files can be loaded",
		},
		{
			name:     "runtime error in a function has a backtrace",
			files:    map[string]string{"main.star": "def f(x):\n    return x + \"a\"\n\nf(1)\n"},
			wantFile: "main.star", wantLine: 2, wantMsg: "unknown binary op",
		},
		{
			name:     "no scenarios",
			files:    map[string]string{"main.star": "x = 1\n"},
			wantFile: "main.star", wantLine: 1, wantMsg: "no scenario",
		},
		{
			name:     "bad scenario argument",
			files:    map[string]string{"main.star": `scenario(name = "s", client = 1, workload = {"f": "read"}, checker = check.stats())` + "\n"},
			wantFile: "main.star", wantLine: 1, wantMsg: "client must be a client",
		},
		{
			name:     "runaway loop hits the step budget",
			files:    map[string]string{"main.star": "def f():\n    while True:\n        pass\nf()\n"},
			wantFile: "main.star", wantMsg: "too many steps",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			_, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Steps: 100_000})
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("error %q does not mention %q", err, tc.wantMsg)
			}
			var se *ScriptError
			if tc.wantFile != "" {
				if !errors.As(err, &se) {
					t.Fatalf("error %T %v is not a *ScriptError", err, err)
				}
				if !strings.HasSuffix(se.File, tc.wantFile) {
					t.Errorf("file = %q, want suffix %q", se.File, tc.wantFile)
				}
				if tc.wantLine != 0 && se.Line != tc.wantLine {
					t.Errorf("line = %d, want %d (%v)", se.Line, tc.wantLine, err)
				}
			}
			if tc.name == "runtime error in a function has a backtrace" && !strings.Contains(se.Backtrace, "in f") {
				t.Errorf("backtrace %q does not show the call to f", se.Backtrace)
			}
		})
	}
}

func TestLoadCancelled(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.star": "def f():\n    while True:\n        pass\nf()\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, filepath.Join(dir, "main.star"), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "cancel") {
		t.Fatalf("err = %v, want cancellation", err)
	}
}

func TestParseLibs(t *testing.T) {
	dir := t.TempDir()
	if _, err := ParseLibs([]string{"stdlib=" + dir}); err == nil {
		t.Error("a root named stdlib was accepted")
	}
	if _, err := ParseLibs([]string{"x=" + filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing directory was accepted")
	}
	libs, err := ParseLibs([]string{dir})
	if err != nil || libs[filepath.Base(dir)] == "" {
		t.Errorf("bare DIR: libs=%v err=%v", libs, err)
	}
}

// TestLoadConfinedToLibRoot: neither @lib//../x nor a relative load from a
// file inside a --lib root may leave that root.
func TestLoadConfinedToLibRoot(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"lib/ok.star":      "ok = 1\n",
		"lib/escape.star":  `load("../outside.star", "x")` + "\nescape = 1\n",
		"lib/sub/in.star":  `load("../ok.star", "ok")` + "\nin_ = ok\n",
		"outside.star":     "x = 1\n",
		"main_ok.star":     `load("@lib//sub/in.star", "in_")` + "\n" + `scenario(name = "s", client = client.noop(), workload = gen.limit(1, {"f": "read"}), checker = check.stats())` + "\n",
		"main_dotdot.star": `load("@lib//../outside.star", "x")` + "\n",
		"main_rel.star":    `load("@lib//escape.star", "escape")` + "\n",
	})
	libs := map[string]string{"lib": filepath.Join(dir, "lib")}
	if _, err := Load(context.Background(), filepath.Join(dir, "main_ok.star"), LoadOptions{Libs: libs}); err != nil {
		t.Fatalf("a load inside the root failed: %v", err)
	}
	for _, main := range []string{"main_dotdot.star", "main_rel.star"} {
		_, err := Load(context.Background(), filepath.Join(dir, main), LoadOptions{Libs: libs})
		if err == nil || !strings.Contains(err.Error(), "leaves the library root @lib") {
			t.Errorf("%s: err = %v, want it to leave the root", main, err)
		}
	}
}
