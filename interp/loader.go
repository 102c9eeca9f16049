package interp

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/star/dialect"
	"github.com/faultline/faultline/stdlib"
)

// module is one loaded file; globals is nil while it is still executing,
// which is how cycles are detected.
type module struct {
	globals starlark.StringDict
	err     error
}

// loader resolves and executes load() targets, once each.
type loader struct {
	libs        map[string]string // "@name" root -> directory
	predeclared starlark.StringDict
	cache       map[string]*module
	stack       []string                     // files currently executing, outermost first
	libSrc      map[string]map[string][]byte // root name -> rel path -> source of each lib file executed
}

func newLoader(libs map[string]string, predeclared starlark.StringDict) *loader {
	return &loader{libs: libs, predeclared: predeclared, cache: map[string]*module{}, libSrc: map[string]map[string][]byte{}}
}

// ParseLibs turns --lib flags into load roots: "NAME=DIR" is loaded as
// "@NAME//file.star"; a bare "DIR" is named after its last path element.
func ParseLibs(flags []string) (map[string]string, error) {
	libs := map[string]string{}
	for _, f := range flags {
		name, dir, ok := strings.Cut(f, "=")
		if !ok {
			dir, name = f, filepath.Base(filepath.Clean(f))
		}
		if !validLibName(name) {
			return nil, fmt.Errorf("--lib %q: the root name must be a plain word other than \"stdlib\"", f)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("--lib %q: %w", f, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--lib %q: %s is not a directory", f, abs)
		}
		libs[name] = abs
	}
	return libs, nil
}

// resolve maps a load() string, seen in the file `from`, to a module id:
// "stdlib:REL" for the embedded library, or an absolute file path.
//
// A library is a closed tree: neither @name//../x nor a relative load from a
// file inside a root may leave that root, and only .star files load, so a
// load can neither reach nor print a file that is not a module.
func (l *loader) resolve(from, target string) (string, error) {
	if filepath.IsAbs(target) || strings.HasPrefix(target, "/") {
		return "", fmt.Errorf("load %q: absolute paths are not allowed; load relative to the script, from @stdlib//, or from a --lib root", target)
	}
	if !strings.HasSuffix(target, ".star") {
		return "", fmt.Errorf("load %q: only .star files can be loaded", target)
	}
	if strings.ContainsFunc(target, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", fmt.Errorf("load %q: control characters in a load path", target)
	}
	if root, rest, ok := strings.Cut(target, "//"); ok && strings.HasPrefix(root, "@") {
		name := root[1:]
		if rest == "" || strings.HasPrefix(rest, "/") {
			return "", fmt.Errorf("load %q: want @%s//path/file.star", target, name)
		}
		clean := path.Clean(rest)
		if clean == ".." || strings.HasPrefix(clean, "../") {
			return "", fmt.Errorf("load %q: the path leaves the library root @%s", target, name)
		}
		if name == "stdlib" {
			return "stdlib:" + clean, nil
		}
		dir, ok := l.libs[name]
		if !ok {
			return "", fmt.Errorf("load %q: no library root @%s (known: %s; add one with --lib %s=DIR)", target, name, l.rootNames(), name)
		}
		id := filepath.Join(dir, filepath.FromSlash(clean))
		if err := confine(target, id, name, dir); err != nil {
			return "", err
		}
		return id, nil
	}
	if rel, ok := strings.CutPrefix(from, "stdlib:"); ok {
		joined := path.Join(path.Dir(rel), target)
		if joined == ".." || strings.HasPrefix(joined, "../") {
			return "", fmt.Errorf("load %q from @stdlib//%s: the path leaves @stdlib", target, rel)
		}
		return "stdlib:" + joined, nil
	}
	id := filepath.Join(filepath.Dir(from), filepath.FromSlash(target))
	for name, dir := range l.libs {
		if !within(from, dir) {
			continue
		}
		if !within(id, dir) {
			return "", fmt.Errorf("load %q from %s: the path leaves the library root @%s", target, displayPath(from), name)
		}
		if err := confine(target, id, name, dir); err != nil {
			return "", err
		}
	}
	return id, nil
}

// within reports whether path p lies inside directory dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (l *loader) rootNames() string {
	names := []string{"@stdlib"}
	for n := range l.libs {
		names = append(names, "@"+n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// read returns a module's source and the file name shown in errors.
func (l *loader) read(id string) ([]byte, string, error) {
	if rel, ok := strings.CutPrefix(id, "stdlib:"); ok {
		src, err := fs.ReadFile(stdlib.FS, rel)
		if err != nil {
			return nil, "", fmt.Errorf("no @stdlib//%s in the standard library", rel)
		}
		return src, "@stdlib//" + rel, nil
	}
	src, err := os.ReadFile(id)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", id, err)
	}
	return src, displayPath(id), nil
}

// displayPath shortens an absolute path to one relative to the working
// directory when that is shorter, so errors read like the command line.
func displayPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}

// exec runs module id on thread (once; later loads share its globals).
func (l *loader) exec(thread *starlark.Thread, id string) (starlark.StringDict, error) {
	if m, ok := l.cache[id]; ok {
		if m.globals == nil && m.err == nil {
			return nil, fmt.Errorf("cycle in load graph: %s -> %s", strings.Join(l.stack, " -> "), id)
		}
		return m.globals, m.err
	}
	m := &module{}
	l.cache[id] = m
	src, name, err := l.read(id)
	if err != nil {
		m.err = err
		return nil, err
	}
	if !strings.HasPrefix(id, "stdlib:") {
		l.noteLibFile(id, src)
	}
	l.stack = append(l.stack, name)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	g, err := starlark.ExecFileOptions(dialect.Options, thread, name, src, l.predeclared)
	if err != nil {
		m.err = err
		return nil, err
	}
	m.globals = g
	return g, nil
}

// load is the thread's Load hook.
func (l *loader) load(thread *starlark.Thread, target string) (starlark.StringDict, error) {
	from := l.currentID(thread)
	id, err := l.resolve(from, target)
	if err != nil {
		return nil, err
	}
	return l.exec(thread, id)
}

// currentID returns the module id of the file executing the load statement.
func (l *loader) currentID(thread *starlark.Thread) string {
	name := thread.CallFrame(0).Pos.Filename()
	if rel, ok := strings.CutPrefix(name, "@stdlib//"); ok {
		return "stdlib:" + rel
	}
	if filepath.IsAbs(name) {
		return name
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}
