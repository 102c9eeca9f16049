package interp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const libScenario = `scenario(name = "s", client = client.noop(), workload = gen.limit(3, {"f": "read"}), checker = check.stats())` + "\n"

// TestLibEscapesRefused: a load can never leave a --lib root, by ../, by an
// absolute path, or through a symlink (to a file or a directory outside);
// the error names the file and line of the load that tried.
func TestLibEscapesRefused(t *testing.T) {
	cases := []struct {
		name     string
		main     string // main.star's first line
		wantFile string // the file the error names
		wantLine int
		wantMsg  string
	}{
		{"dot-dot from the root", `load("@lib//../outside.star", "x")`, "main.star", 1, "leaves the library root @lib"},
		{"dot-dot inside the path", `load("@lib//sub/../../outside.star", "x")`, "main.star", 1, "leaves the library root @lib"},
		{"absolute path after the root", `load("@lib///etc/outside.star", "x")`, "main.star", 1, "want @lib//path/file.star"},
		{"absolute path", `load("/tmp/outside.star", "x")`, "main.star", 1, "absolute paths are not allowed"},
		{"relative load from a library file", `load("@lib//rel.star", "x")`, "rel.star", 2, "leaves the library root @lib"},
		{"symlinked file pointing outside", `load("@lib//linked.star", "x")`, "main.star", 1, "through a symlink"},
		{"symlinked directory pointing outside", `load("@lib//linkdir/outside.star", "x")`, "main.star", 1, "through a symlink"},
		{"relative load through a symlink from a library file", `load("@lib//viarel.star", "x")`, "viarel.star", 1, "through a symlink"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{
				"main.star":        tc.main + "\n" + libScenario,
				"outside.star":     "x = 1\n",
				"lib/ok.star":      "ok = 1\n",
				"lib/sub/s.star":   "s = 1\n",
				"lib/rel.star":     "# a relative load that leaves\n" + `load("../outside.star", "x")` + "\n",
				"lib/viarel.star":  `load("linked.star", "x")` + "\n",
				"lib/inside.star":  `load("inlink.star", "ok")` + "\n",
				"lib/inlink.star":  "placeholder = 1\n",
				"main_inside.star": `load("@lib//inside.star", "ok")` + "\n" + libScenario,
			})
			lib := filepath.Join(dir, "lib")
			mustSymlink(t, filepath.Join(dir, "outside.star"), filepath.Join(lib, "linked.star"))
			mustSymlink(t, dir, filepath.Join(lib, "linkdir"))
			libs, err := ParseLibs([]string{"lib=" + lib})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Libs: libs})
			if err == nil {
				t.Fatal("Load succeeded, want the escape refused")
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("error %q does not say %q", err, tc.wantMsg)
			}
			var se *ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not a *ScriptError", err, err)
			}
			if filepath.Base(se.File) != tc.wantFile || se.Line != tc.wantLine {
				t.Errorf("error at %s:%d, want %s:%d (%v)", se.File, se.Line, tc.wantFile, tc.wantLine, err)
			}
		})
	}
}

// TestLibSymlinkInsideRootLoads: a link that stays inside the root is an
// ordinary file of the library.
func TestLibSymlinkInsideRootLoads(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"lib/real.star": "ok = 1\n",
		"main.star":     `load("@lib//alias.star", "ok")` + "\n" + libScenario,
	})
	mustSymlink(t, "real.star", filepath.Join(dir, "lib", "alias.star"))
	if _, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Libs: map[string]string{"lib": filepath.Join(dir, "lib")}}); err != nil {
		t.Fatalf("a symlink inside the root was refused: %v", err)
	}
}

// TestLibDigestRecordedAndKept: the script records the files each root gave
// it (not the files it did not load) and their digest; the run writes both
// into its schedule header and keeps a copy of the files beside it.
func TestLibDigestRecordedAndKept(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"lib/a.star":      `load("sub/b.star", "b")` + "\na = b + 1\n",
		"lib/sub/b.star":  "b = 1\n",
		"lib/unused.star": "never = 1\n",
		"lib/README":      "not a module\n",
		"other/o.star":    "o = 1\n",
		"main.star":       `load("@lib//a.star", "a")` + "\n" + libScenario,
	})
	libs := map[string]string{"lib": filepath.Join(dir, "lib"), "other": filepath.Join(dir, "other")}
	s, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Libs: libs})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Libs) != 1 {
		t.Fatalf("libs = %+v, want only @lib (@other was given but not loaded from)", s.Libs)
	}
	u := s.Libs[0]
	if u.Name != "lib" || u.Dir != libs["lib"] || !slices.Equal(u.Files, []string{"a.star", "sub/b.star"}) {
		t.Fatalf("lib use = %+v", u)
	}
	want := LibDigest(map[string][]byte{"a.star": []byte(`load("sub/b.star", "b")` + "\na = b + 1\n"), "sub/b.star": []byte("b = 1\n")})
	if u.SHA256 != want || len(want) != 64 {
		t.Fatalf("digest = %q, want %q", u.SHA256, want)
	}
	if now, err := u.DigestNow(u.Dir); err != nil || now != want {
		t.Fatalf("DigestNow = %q, %v; want %q", now, err, want)
	}
	// A file the run did not load changes nothing it did.
	if err := os.WriteFile(filepath.Join(dir, "lib", "unused.star"), []byte("never = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if now, _ := u.DigestNow(u.Dir); now != want {
		t.Error("editing a file the run did not load changed the digest")
	}
	if err := os.WriteFile(filepath.Join(dir, "lib", "sub", "b.star"), []byte("b = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if now, _ := u.DigestNow(u.Dir); now == want {
		t.Error("editing a loaded file kept the digest")
	}

	art := t.TempDir()
	if _, err := Run(context.Background(), s.Scenarios[0], RunOptions{Seed: 1, Dir: art, Script: filepath.Join(dir, "main.star")}); err != nil {
		t.Fatal(err)
	}
	h, _, err := ReadSchedule(filepath.Join(art, ScheduleFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Libs) != 1 || h.Libs[0].SHA256 != want || !slices.Equal(h.Libs[0].Files, u.Files) {
		t.Fatalf("schedule header libs = %+v", h.Libs)
	}
	if h.Libs[0].Kept != filepath.Join(art, "libs", "lib") {
		t.Errorf("kept = %q", h.Libs[0].Kept)
	}
	// The copy is the files as loaded, before the edit above.
	if now, err := h.Libs[0].DigestNow(h.Libs[0].Kept); err != nil || now != want {
		t.Errorf("the kept copy's digest = %q, %v; want %q", now, err, want)
	}
	if _, err := os.Stat(filepath.Join(art, "libs", "lib", "unused.star")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file the run did not load was kept: %v", err)
	}
}

// TestScheduleRefusesBadLibNames: the recorded names become paths of the
// kept copy, so a header naming a root or file outside it is refused.
func TestScheduleRefusesBadLibNames(t *testing.T) {
	cases := []struct {
		name string
		use  LibUse
		ok   bool
	}{
		{"plain", LibUse{Name: "lib", Files: []string{"a.star", "sub/b.star"}}, true},
		{"root name with a slash", LibUse{Name: "../x", Files: []string{"a.star"}}, false},
		{"root name dot-dot", LibUse{Name: "..", Files: []string{"a.star"}}, false},
		{"file leaving the root", LibUse{Name: "lib", Files: []string{"../a.star"}}, false},
		{"absolute file", LibUse{Name: "lib", Files: []string{"/etc/a.star"}}, false},
		{"unclean file", LibUse{Name: "lib", Files: []string{"sub/../a.star"}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkLibUse(tc.use); (err == nil) != tc.ok {
				t.Errorf("checkLibUse(%+v) = %v, want ok=%v", tc.use, err, tc.ok)
			}
		})
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
