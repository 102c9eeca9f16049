package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/logaudit"
)

// logsValue is the Starlark value system_logs(...) builds: where a system's
// logs are and what in them fails a run, for scenario(logs = ...) or a db
// recipe's logs field.
type logsValue struct{ spec logaudit.Spec }

func (v *logsValue) String() string {
	if v.spec.None != "" {
		return fmt.Sprintf("system_logs(none = %q)", v.spec.None)
	}
	return fmt.Sprintf("system_logs(paths = %q, local_paths = %q, alarms = %q, expected = %q)", v.spec.Paths, v.spec.Local, v.spec.Alarms, v.spec.Expected)
}
func (v *logsValue) Type() string          { return "system_logs" }
func (v *logsValue) Freeze()               {}
func (v *logsValue) Truth() starlark.Bool  { return true }
func (v *logsValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: system_logs") }

// systemLogsBuiltin is system_logs(paths, local_paths, alarms, expected,
// default_alarms, none).
func systemLogsBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var paths, local, alarms, expected starlark.Value
	defaults := true
	var none string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "paths?", &paths, "local_paths?", &local,
		"alarms?", &alarms, "expected?", &expected, "default_alarms?", &defaults, "none?", &none); err != nil {
		return nil, err
	}
	var s logaudit.Spec
	var err error
	for _, f := range []struct {
		name string
		v    starlark.Value
		dst  *[]string
	}{{"paths", paths, &s.Paths}, {"local_paths", local, &s.Local}, {"alarms", alarms, &s.Alarms}, {"expected", expected, &s.Expected}} {
		if *f.dst, err = stringList(f.v); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", b.Name(), f.name, err)
		}
	}
	for _, p := range s.Local {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%s: local_paths: %q is not absolute (a file on this machine is named from the root, so the run's working directory does not matter)", b.Name(), p)
		}
	}
	s.NoDefaults, s.None = !defaults, none
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return &logsValue{s}, nil
}

// logSpec reads scenario(logs = ...): a system_logs value, or a list of
// node paths.
func logSpec(v starlark.Value) (logaudit.Spec, error) {
	if v == nil || v == starlark.None {
		return logaudit.Spec{}, nil
	}
	if lv, ok := v.(*logsValue); ok {
		return lv.spec, nil
	}
	paths, err := stringList(v)
	if err != nil {
		return logaudit.Spec{}, fmt.Errorf("want system_logs(...) or a list of log paths on the nodes: %w", err)
	}
	return logaudit.Spec{Paths: paths}, nil
}

// logFileNames is where each node path is saved under logs/<node>/: its
// base name, or its cleaned path when two paths share a base name.
func logFileNames(paths []string) map[string]string {
	bases := map[string]int{}
	for _, p := range paths {
		bases[path.Base(p)]++
	}
	names := make(map[string]string, len(paths))
	for _, p := range paths {
		name := path.Base(p)
		if bases[name] > 1 {
			name = strings.TrimPrefix(path.Clean("/"+p), "/")
		}
		names[p] = filepath.FromSlash(name)
	}
	return names
}

// hostLogDir is the logs/ subdirectory the copies of local_paths go to.
const hostLogDir = "host"

// fetchLogs saves paths from every node of pool into dir/logs/<node>/ and
// local (files on this machine) into dir/logs/host/, and returns every
// declared log with where it was saved or why it was not: the log audit
// reads exactly these, so a log that never arrived is named, not skipped.
func fetchLogs(ctx context.Context, pool *control.Pool, paths, local []string, dir string) []logaudit.File {
	var (
		mu    sync.Mutex
		files []logaudit.File
		wg    sync.WaitGroup
	)
	add := func(f logaudit.File) {
		mu.Lock()
		files = append(files, f)
		mu.Unlock()
	}
	names := logFileNames(paths)
	if pool != nil && len(paths) > 0 {
		for _, n := range pool.Nodes() {
			wg.Go(func() {
				for _, f := range saveNodeLogs(ctx, pool, n.Name, paths, names, filepath.Join(dir, "logs", n.Name)) {
					add(f)
				}
			})
		}
	}
	lnames := logFileNames(local)
	for _, p := range local {
		dst := filepath.Join(dir, "logs", hostLogDir, lnames[p])
		f := logaudit.File{Name: p, Path: dst}
		if err := copyFile(p, dst); err != nil {
			f.Path, f.Err = "", fmt.Sprintf("not copied: %v", err)
		}
		add(f)
	}
	wg.Wait()
	sortFiles(files)
	return files
}

// saveNodeLogs downloads one node's logs; each result names the log as
// "<node>/<path as declared>".
func saveNodeLogs(ctx context.Context, pool *control.Pool, node string, paths []string, names map[string]string, dir string) []logaudit.File {
	out := make([]logaudit.File, 0, len(paths))
	r, err := pool.Remote(ctx, node)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	for _, p := range paths {
		f := logaudit.File{Name: node + "/" + p}
		switch {
		case err != nil:
			f.Err = fmt.Sprintf("not fetched: %v", err)
		default:
			dst := filepath.Join(dir, names[p])
			if derr := os.MkdirAll(filepath.Dir(dst), 0o755); derr != nil {
				f.Err = fmt.Sprintf("not fetched: %v", derr)
			} else if derr := r.Download(ctx, p, dst); derr != nil {
				f.Err = fmt.Sprintf("not fetched: %v", derr)
			} else {
				f.Path = dst
			}
		}
		out = append(out, f)
	}
	return out
}

// fetchErrors joins the reasons logs could not be saved, for the run's log.
func fetchErrors(files []logaudit.File) error {
	var errs []error
	for _, f := range files {
		if f.Err != "" {
			errs = append(errs, fmt.Errorf("save log %s: %s", f.Name, f.Err))
		}
	}
	return errors.Join(errs...)
}

func sortFiles(files []logaudit.File) {
	slices.SortFunc(files, func(a, b logaudit.File) int { return strings.Compare(a.Name, b.Name) })
}

// copyFile copies src to dst, creating dst's directory.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// logSaver returns the func that saves the scenario's declared logs once,
// recording them in r.LogFiles for the audit, with a fresh context so a
// cancelled run still saves them.
func logSaver(ctx context.Context, s *Scenario, o RunOptions, r *Result) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			if len(s.Logs.Paths)+len(s.Logs.Local) == 0 {
				return
			}
			tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
			defer cancel()
			r.LogFiles = fetchLogs(tctx, o.Pool, s.Logs.Paths, s.Logs.Local, o.Dir)
			if err := fetchErrors(r.LogFiles); err != nil {
				o.Log(fmt.Sprintf("db logs: %v", err))
			}
		})
	}
}
