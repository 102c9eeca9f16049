package testcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSharedCorpora(t *testing.T) {
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

// fakeTree builds root/repo/pkg and root/shared/corpus/c with the given
// expected.tsv, and moves into root/repo/pkg, like a package test in CI.
func fakeTree(t *testing.T, tsv string) (root string) {
	root = t.TempDir()
	pkg := filepath.Join(root, "repo", "pkg")
	corpus := filepath.Join(root, "shared", "corpus", "c")
	for _, d := range []string{pkg, corpus} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if tsv != "" {
		if err := os.WriteFile(filepath.Join(corpus, "expected.tsv"), []byte(tsv), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(pkg)
	return root
}

func TestDirWalksUp(t *testing.T) {
	root := fakeTree(t, "")
	r := &recorder{TB: t}
	got := Dir(r, "c")
	want := filepath.Join(root, "shared", "corpus", "c")
	if r.failed != "" || got != want {
		t.Errorf("Dir = %q (failure %q), want %q", got, r.failed, want)
	}
	if r := (&recorder{TB: t}); Dir(r, "missing") != "" || !strings.Contains(r.failed, `no corpus "missing"`) {
		t.Errorf("missing corpus: failure %q", r.failed)
	}
}

func TestDirFailsWithoutCorpus(t *testing.T) {
	t.Chdir(t.TempDir())
	r := &recorder{TB: t}
	if got := Dir(r, "c"); got != "" || !strings.Contains(r.failed, "no shared/corpus directory above") {
		t.Errorf("Dir = %q, failure %q; want a failure", got, r.failed)
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
