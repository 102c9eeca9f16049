// Package testcorpus locates the corpus of public histories for tests. The corpus
// is part of the repository, in testdata/corpus/<name> at the module root, so that
// tests pass in any clone; tests find it by walking up from their working directory
// (the package directory under go test) to the directory whose go.mod declares this
// module. A test that cannot find a corpus fails: a corpus test that silently skips
// proves nothing.
package testcorpus

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Module is the module path whose root holds testdata/corpus. A go.mod of any
// other module on the way up (a nested example module, say) is passed over.
const Module = "github.com/faultline/faultline"

// Dir returns the absolute path of testdata/corpus/<name> under the root of
// Module, found by walking up from the working directory. It fails the test if
// no ancestor is that module's root or the root has no such corpus directory.
func Dir(t testing.TB, name string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("testcorpus: %v", err)
		return ""
	}
	root, err := moduleRoot(wd, Module)
	if err != nil {
		t.Fatalf("testcorpus: %v", err)
		return ""
	}
	path := filepath.Join(root, "testdata", "corpus", name)
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		t.Fatalf("testcorpus: the module root %s has no corpus %q (want a directory %s)", root, name, path)
		return ""
	}
	return path
}

// moduleRoot returns the nearest directory at or above start whose go.mod
// declares module, so the corpus is found from any package directory.
func moduleRoot(start, module string) (string, error) {
	for dir := start; ; {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		switch {
		case err == nil:
			if modulePath(data) == module {
				return dir, nil
			}
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("find the root of module %s: %w", module, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of module %s at or above %s", module, start)
		}
		dir = parent
	}
}

// modulePath returns the path in a go.mod's module directive, or "" if it has
// none. It reads only that directive (bare or quoted, with an optional trailing
// comment), which is all that locating the root needs, so the package stays
// free of dependencies.
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue // not the module directive (e.g. a "modulefoo" line or a comment)
		}
		rest = strings.TrimSpace(rest)
		if i := strings.Index(rest, "//"); i >= 0 && !strings.HasPrefix(rest, `"`) {
			rest = strings.TrimSpace(rest[:i])
		}
		if strings.HasPrefix(rest, `"`) {
			unq, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return ""
			}
			path, err := strconv.Unquote(unq)
			if err != nil {
				return ""
			}
			return path
		}
		return rest
	}
	return ""
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
