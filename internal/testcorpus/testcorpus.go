// Package testcorpus locates the shared corpus of public histories for tests.
// The corpus lives in a directory named shared/ beside the repository (here and
// in CI), so tests find it by walking up from their working directory. A test
// that cannot find it fails: a corpus test that silently skips proves nothing.
package testcorpus

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir returns the absolute path of shared/corpus/<name>, found by walking up
// from the working directory to the first ancestor with a shared/corpus
// subdirectory. It fails the test if there is none or it lacks name.
func Dir(t testing.TB, name string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("testcorpus: %v", err)
		return ""
	}
	for dir := wd; ; {
		corpus := filepath.Join(dir, "shared", "corpus")
		if fi, err := os.Stat(corpus); err == nil && fi.IsDir() {
			path := filepath.Join(corpus, name)
			if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
				t.Fatalf("testcorpus: %s has no corpus %q", corpus, name)
				return ""
			}
			return path
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("testcorpus: no shared/corpus directory above %s", wd)
			return ""
		}
		dir = parent
	}
}

// Expected reads the corpus's expected.tsv (a header line, then "file<TAB>verdict"
// lines) into a map from file name to verdict. It fails the test if the file is
// missing, malformed or lists nothing.
func Expected(t testing.TB, name string) map[string]string {
	t.Helper()
	dir := Dir(t, name)
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, "expected.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("testcorpus: %v", err)
		return nil
	}
	defer f.Close()
	want := make(map[string]string)
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 || strings.TrimSpace(text) == "" {
			continue // the header, or a trailing blank line
		}
		file, verdict, ok := strings.Cut(text, "\t")
		if !ok || file == "" || verdict == "" || strings.Contains(verdict, "\t") {
			t.Fatalf("testcorpus: %s:%d: expected \"file<TAB>verdict\", found %q", path, line, text)
			return nil
		}
		if _, dup := want[file]; dup {
			t.Fatalf("testcorpus: %s:%d: %s is listed twice", path, line, file)
			return nil
		}
		want[file] = verdict
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("testcorpus: read %s: %v", path, err)
		return nil
	}
	if len(want) == 0 {
		t.Fatalf("testcorpus: %s lists no files", path)
		return nil
	}
	return want
}
