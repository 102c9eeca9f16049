package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// LibsDir is the folder of a run's artifact directory that keeps a copy of
// every --lib file the run's script loaded, one subfolder per root
// (libs/NAME/...), so a replay can load the library as it was.
const LibsDir = "libs"

// LibUse is one --lib root as a script's loads used it: recorded in the
// schedule header so a replay can restore it and notice a change.
//
// The digest covers the files actually loaded, not the whole directory: a
// library is shared by many suites, and a README or an unrelated module
// edited beside it changes nothing a run did, so it must not make a replay
// warn.
type LibUse struct {
	Name   string   `json:"name"`
	Dir    string   `json:"dir"`    // the root's directory as given (absolute)
	SHA256 string   `json:"sha256"` // LibDigest of Files as they were loaded
	Files  []string `json:"files"`  // the files loaded, slash paths relative to Dir, sorted

	// Kept is the directory holding the run's copy of Files
	// (<artifact>/libs/NAME); ReadSchedule sets it, it is not written.
	Kept string `json:"-"`

	src map[string][]byte // Files' contents as loaded (rel -> bytes)
}

// LibDigest is the hex SHA-256 of a library's files: for each file in
// sorted order, its slash path, its length and its bytes, so neither a
// rename nor moving bytes from one file to another keeps the digest.
func LibDigest(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(files[n]))))
		h.Write([]byte{0})
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// DigestNow is the LibDigest of u's files as they are now under dir; a file
// that is gone is reported as an error naming it.
func (u LibUse) DigestNow(dir string) (string, error) {
	files := map[string][]byte{}
	for _, rel := range u.Files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return "", fmt.Errorf("@%s//%s: %w", u.Name, rel, err)
		}
		files[rel] = data
	}
	return LibDigest(files), nil
}

// writeCopy writes u's files as loaded under dir/libs/NAME.
func (u LibUse) writeCopy(dir string) error {
	root := filepath.Join(dir, LibsDir, u.Name)
	for rel, data := range u.src {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("keep a copy of @%s: %w", u.Name, err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("keep a copy of @%s: %w", u.Name, err)
		}
	}
	return nil
}

// usedLibs lists the roots whose files the loader executed, with each
// root's digest; roots given but never loaded from are left out.
func (l *loader) usedLibs() []LibUse {
	var out []LibUse
	for name, files := range l.libSrc {
		u := LibUse{Name: name, Dir: l.libs[name], SHA256: LibDigest(files), src: files}
		for rel := range files {
			u.Files = append(u.Files, rel)
		}
		slices.Sort(u.Files)
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b LibUse) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// noteLibFile records that module id, read as src, belongs to a --lib root
// (the innermost root holding it) so the run can record and keep it.
func (l *loader) noteLibFile(id string, src []byte) {
	best, bestDir := "", ""
	for name, dir := range l.libs {
		if within(id, dir) && len(dir) > len(bestDir) {
			best, bestDir = name, dir
		}
	}
	if best == "" {
		return
	}
	rel, err := filepath.Rel(bestDir, id)
	if err != nil {
		return
	}
	if l.libSrc[best] == nil {
		l.libSrc[best] = map[string][]byte{}
	}
	l.libSrc[best][filepath.ToSlash(rel)] = src
}

// confine refuses a module id inside root dir (@name) whose real path,
// symlinks followed, lies outside the root's real path: a link in a shared
// library must not make a load read a file the library does not hold. A
// file that does not exist is left for read to report.
func confine(target, id, name, dir string) error {
	real, err := filepath.EvalSymlinks(id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load %q: %w", target, err)
	}
	realRoot, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("load %q: library root @%s: %w", target, name, err)
	}
	if !within(real, realRoot) {
		return fmt.Errorf("load %q: the path leaves the library root @%s through a symlink (to %s)", target, name, real)
	}
	return nil
}

// checkLibUse refuses a recorded root whose name is not a plain word or
// whose files are not clean relative paths inside it.
func checkLibUse(u LibUse) error {
	if !validLibName(u.Name) {
		return fmt.Errorf("library %q: not a plain root name", u.Name)
	}
	for _, f := range u.Files {
		if c := path.Clean(f); c != f || path.IsAbs(f) || c == ".." || strings.HasPrefix(c, "../") {
			return fmt.Errorf("library @%s: file %q is not a clean path inside the root", u.Name, f)
		}
	}
	return nil
}

// validLibName: a root name is a plain word other than "stdlib".
func validLibName(name string) bool {
	return name != "" && name != "stdlib" && name != "." && name != ".." && !strings.ContainsAny(name, "/@\\")
}
