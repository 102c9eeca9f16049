package testcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryCorpora checks the real, in-repository corpora: every file
// expected.tsv lists exists and has one of the two verdicts.
func TestRepositoryCorpora(t *testing.T) {
	for _, name := range []string{"porcupine-etcd", "porcupine-kv"} {
		dir := Dir(t, name)
		if !filepath.IsAbs(dir) || filepath.Base(dir) != name {
			t.Errorf("Dir(%q) = %q, want an absolute path ending in the name", name, dir)
		}
		want := Expected(t, name)
		for file, verdict := range want {
			if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if verdict != "linearizable" && verdict != "not-linearizable" {
				t.Errorf("%s/%s: unexpected verdict %q", name, file, verdict)
			}
		}
	}
}

// recorder is a testing.TB whose Fatalf records the failure instead of
// stopping the goroutine, so the failing paths can be checked.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	if r.failed == "" {
		r.failed = fmt.Sprintf(format, args...)
	}
}

// fakeTree builds root/go.mod (module Module), root/testdata/corpus/c with the
// given expected.tsv (none if tsv is ""), and root/pkg/sub, and moves into
// root/pkg/sub, like a package test in a clone.
func fakeTree(t *testing.T, tsv string) (root string) {
	root = t.TempDir()
	pkg := filepath.Join(root, "pkg", "sub")
	corpus := filepath.Join(root, "testdata", "corpus", "c")
	for _, d := range []string{pkg, corpus} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(root, "go.mod"), "module "+Module+"\n\ngo 1.26\n")
	if tsv != "" {
		writeFile(t, filepath.Join(corpus, "expected.tsv"), tsv)
	}
	t.Chdir(pkg)
	return root
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDirWalksUpToModuleRoot(t *testing.T) {
	root := fakeTree(t, "")
	r := &recorder{TB: t}
	got := Dir(r, "c")
	want := filepath.Join(root, "testdata", "corpus", "c")
	if r.failed != "" || got != want {
		t.Errorf("Dir = %q (failure %q), want %q", got, r.failed, want)
	}
	if r := (&recorder{TB: t}); Dir(r, "missing") != "" || !strings.Contains(r.failed, `has no corpus "missing"`) {
		t.Errorf("missing corpus: failure %q", r.failed)
	}
}

// TestDirSkipsOtherModules: a nested module's go.mod (with its own testdata)
// is not the root, so the walk goes on up to this module's go.mod.
func TestDirSkipsOtherModules(t *testing.T) {
	root := fakeTree(t, "")
	nested := filepath.Join(root, "pkg")
	writeFile(t, filepath.Join(nested, "go.mod"), "module example.com/other\n")
	if err := os.MkdirAll(filepath.Join(nested, "testdata", "corpus", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	if got, want := Dir(r, "c"), filepath.Join(root, "testdata", "corpus", "c"); r.failed != "" || got != want {
		t.Errorf("Dir = %q (failure %q), want %q", got, r.failed, want)
	}
}

// TestDirIgnoresCorpusBeside: a corpus folder beside the repository, in a
// temporary tree this test builds, is never used; without the in-repo copy
// the test fails.
func TestDirIgnoresCorpusBeside(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	for _, d := range []string{filepath.Join(top, "beside", "corpus", "c"), filepath.Join(repo, "pkg")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(repo, "go.mod"), "module "+Module+"\n")
	t.Chdir(filepath.Join(repo, "pkg"))
	r := &recorder{TB: t}
	if got := Dir(r, "c"); got != "" || !strings.Contains(r.failed, `has no corpus "c"`) {
		t.Errorf("Dir = %q, failure %q; want a failure naming the missing corpus", got, r.failed)
	}
}

func TestDirFailsWithoutModuleRoot(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/other\n")
	t.Chdir(dir)
	r := &recorder{TB: t}
	if got := Dir(r, "c"); got != "" || !strings.Contains(r.failed, "no go.mod of module "+Module) {
		t.Errorf("Dir = %q, failure %q; want a failure", got, r.failed)
	}
}

func TestModulePath(t *testing.T) {
	tests := []struct {
		name, gomod, want string
	}{
		{"bare", "module github.com/faultline/faultline\n\ngo 1.26\n", "github.com/faultline/faultline"},
		{"after comments and blank lines", "// a comment\n\nmodule example.com/m\n", "example.com/m"},
		{"trailing comment", "module example.com/m // the module\n", "example.com/m"},
		{"quoted", "module \"example.com/m\"\n", "example.com/m"},
		{"tab and CRLF", "module\texample.com/m\r\n", "example.com/m"},
		{"major version suffix is another module", "module example.com/m/v2\n", "example.com/m/v2"},
		{"longer keyword is not the directive", "modulex example.com/m\n", ""},
		{"no directive", "go 1.26\n", ""},
		{"bad quoting", "module \"example.com/m\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := modulePath([]byte(tt.gomod)); got != tt.want {
				t.Errorf("modulePath(%q) = %q, want %q", tt.gomod, got, tt.want)
			}
		})
	}
}

func TestExpected(t *testing.T) {
	tests := []struct {
		name, tsv string
		want      map[string]string
		failure   string
	}{
		{"good", "file\texpected\na.log\tok\r\nb.log\tbad\n\n", map[string]string{"a.log": "ok", "b.log": "bad"}, ""},
		{"no tab", "file\texpected\na.log ok\n", nil, `expected "file<TAB>verdict"`},
		{"extra column", "file\texpected\na.log\tok\tx\n", nil, `expected "file<TAB>verdict"`},
		{"duplicate", "file\texpected\na\tok\na\tbad\n", nil, "a is listed twice"},
		{"header only", "file\texpected\n", nil, "lists no files"},
		{"missing file", "", nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakeTree(t, tt.tsv)
			r := &recorder{TB: t}
			got := Expected(r, "c")
			if tt.failure != "" {
				if !strings.Contains(r.failed, tt.failure) {
					t.Errorf("failure %q, want %q", r.failed, tt.failure)
				}
				return
			}
			if r.failed != "" || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v (failure %q), want %v", got, r.failed, tt.want)
			}
		})
	}
}
