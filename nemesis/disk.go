package nemesis

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/bytesize"
)

// fillScript allocates $2 bytes (fallocate -l syntax) at path $1, records
// it in the state file, and prints the file's size and the bytes left free
// on its filesystem. The file must be new: one that exists is the node's
// (or a fill file of faultline's own the state file records), and heal
// deletes fill files, so it refuses any other (exit 3) rather than fill and
// later delete what it did not create. The record comes first and the file
// is created exclusively (noclobber), so a crash between the two leaves a
// record of a file that is not there, never a file heal does not know.
const fillScript = stateLib + `f=$1 size=$2
mine=
[ -f "$state" ] && grep -qxF -- "fill $f" "$state" && mine=1
if [ -z "$mine" ]; then
  if [ -e "$f" ] || [ -L "$f" ]; then echo "$f exists and faultline did not create it: fill_disk fills a file of its own and never one of the node's (name a path that does not exist)" >&2; exit 3; fi
  note fill "$f" || exit 1
  if ! (set -C; : >"$f"); then forget fill "$f"; echo "$f: cannot create it (or it appeared meanwhile)" >&2; exit 3; fi
fi
fallocate -l "$size" -- "$f" || exit 1
echo "size $(stat -c %s -- "$f")"
echo "avail $(df -P -B1 -- "${f%/*}" | awk 'NR == 2 {print $4}')"
`

// freeScript deletes the fill file $1 if the state file records it as
// faultline's, forgets it, and prints whether it is gone; a file it does not
// record (a fill refused because the path was the node's) is kept, and it
// prints "kept".
const freeScript = stateLib + `if ! { [ -f "$state" ] && grep -qxF -- "fill $1" "$state"; }; then echo kept; exit 0; fi
rm -f -- "$1" || exit 1
forget fill "$1"
if [ -e "$1" ]; then echo "exists"; else echo "gone"; fi
`

func init() {
	register(Fault{
		Name: "fill_disk", Inject: "fill-disk", End: "free-disk",
		Landing: "the fill file read back at its full size after inject",
		Validate: func(v any) error {
			m, _ := v.(map[string]any)
			size, _ := m["size"].(string)
			if _, err := bytesize.Parse(size); err != nil {
				return err
			}
			file, _ := m["path"].(string)
			return checkFillPath(file)
		},
		inject: func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.fillDisk(ctx, v) },
		end:    func(w *Worker, ctx context.Context, _ any) (outcome, error) { return w.freeDisk(ctx) },
	})
}

// fillDisk fills disk on the targets. Value: {"nodes", "path": absolute
// file path, "size": fallocate size such as "100M"}. A size is required:
// on a local cluster the nodes' disks are the host's.
func (w *Worker) fillDisk(ctx context.Context, v any) (outcome, error) {
	m, _ := v.(map[string]any)
	file, _ := m["path"].(string)
	size, _ := m["size"].(string)
	if err := checkFillPath(file); err != nil {
		return outcome{value: v}, fmt.Errorf("fill-disk: %w", err)
	}
	want, err := bytesize.Parse(size)
	if err != nil {
		return outcome{value: v}, fmt.Errorf("fill-disk: %w", err)
	}
	targets, err := w.targets(ctx, "fill-disk", m["nodes"])
	if err != nil {
		return outcome{value: v}, err
	}
	w.filled = append(w.filled, fill{targets, file})
	landed := newVerdict()
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		out, err := runScript(ctx, r, "fill-disk "+file+" "+size, fillScript, file, size)
		e := map[string]any{}
		for _, l := range nonEmpty(out) {
			if k, val, ok := strings.Cut(l, " "); ok {
				n, _ := strconv.ParseInt(val, 10, 64)
				e[k] = n
			}
		}
		if got, _ := e["size"].(int64); err != nil || got < want {
			landed.fail()
		}
		return e, err
	})
	val := map[string]any{"nodes": strs(targets), "path": file, "size": size}
	return outcome{value: val, evidence: ev, landed: landed.ok() && err == nil, applied: true}, err
}

// freeDisk deletes every fill file this worker made and reads back that
// each is gone.
func (w *Worker) freeDisk(ctx context.Context) (outcome, error) {
	if len(w.filled) == 0 {
		return outcome{value: map[string]any{}}, fmt.Errorf("free-disk: no disk is filled")
	}
	healed := newVerdict()
	ev := map[string]any{}
	var errs []error
	for _, f := range w.filled {
		e, err := w.eachNode(ctx, f.nodes, func(node string, r control.Remote) (any, error) {
			out, err := runScript(ctx, r, "free-disk "+f.path, freeScript, f.path)
			if o := strings.TrimSpace(out); err != nil || o != "gone" && o != "kept" {
				healed.fail()
			}
			return map[string]any{f.path: strings.TrimSpace(out)}, err
		})
		for k, v := range e {
			ev[k] = v
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	w.filled = nil
	err := errors.Join(errs...)
	h := healed.ok() && err == nil
	return outcome{value: map[string]any{}, evidence: ev, landed: true, healed: &h}, err
}

// fill is one fill file on some nodes.
type fill struct {
	nodes []string
	path  string
}

// checkFillPath accepts a fill file's path: a clean absolute path to a file,
// with no control character. Heal reads the node's state file line by line,
// so a newline in a path could forge a record naming someone else's file.
func checkFillPath(file string) error {
	if !path.IsAbs(file) || path.Clean(file) != file || file == "/" {
		return fmt.Errorf("path %q must be a clean absolute file path", file)
	}
	return checkNoControl("path", file)
}

// checkNoControl refuses a value with a control character (newline, CR,
// NUL, ...): values reach shell scripts and line-based state on the nodes.
func checkNoControl(what, v string) error {
	if i := strings.IndexFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return fmt.Errorf("%s %q has a control character at byte %d", what, v, i)
	}
	return nil
}
