package control

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// StateDir is faultline's directory of per-boot state on a node: pid,
// stats and log files of the daemons it runs for itself, the nemesis's
// state, and CreatedFile.
const StateDir = "/run/faultline"

// CreatedFile records, on a node, each file and directory faultline made
// there for itself (an uploaded binary, the delay agent's log, the
// directories holding them), one "file PATH" or "dir PATH" line each,
// written before the thing is made, so a controller killed right after
// still leaves it recorded. RemoveCreated removes what it names and nothing
// else: a directory that already existed is never recorded, so the node's
// own files beside faultline's stay where they are.
const CreatedFile = StateDir + "/created"

// CreatedLib is shared shell for recording what faultline makes on a node:
//
// made KIND PATH records PATH (KIND file or dir) in CreatedFile once,
// making StateDir first (and recording it) when it is missing.
//
// make_dir DIR is mkdir -p that records each directory it makes, parents
// first, and none that was there.
const CreatedLib = `created=` + CreatedFile + `
made() {
  case $2 in *"
"*) echo "refusing a path with a newline" >&2; return 1;; esac
  if [ ! -d ` + StateDir + ` ]; then
    mkdir -p ` + StateDir + ` || return 1
    grep -qxF -- "dir ` + StateDir + `" "$created" 2>/dev/null || echo "dir ` + StateDir + `" >>"$created" || return 1
  fi
  grep -qxF -- "$1 $2" "$created" 2>/dev/null || echo "$1 $2" >>"$created"
}
make_dir() {
  [ -d "$1" ] && return 0
  make_dir "$(dirname -- "$1")" || return 1
  [ -d "$1" ] && return 0
  made dir "$1" || return 1
  mkdir -- "$1" 2>/dev/null || [ -d "$1" ]
}
`

// removeCreatedScript removes the files CreatedFile names, when they are
// still regular files under faultline's own directories (a record edited to
// name another path is ignored), then the directories it names, deepest
// first and only when empty: one that still holds something (a kept record,
// a file someone put there) stays, and stays recorded, StateDir with it
// since the record lives there. It prints one line per thing removed.
const removeCreatedScript = CreatedLib + `[ -f "$created" ] || exit 0
fwd= rev= state=
while read -r kind val; do
  case $kind in
    file)
      case $val in ` + StateDir + `/*|` + BinDir + `/*) ;; *) continue;; esac
      if [ -f "$val" ] && [ ! -L "$val" ]; then rm -f -- "$val" && echo "removed $val"; fi;;
    dir)
      if [ "$val" = ` + StateDir + ` ]; then state=yes; continue; fi
      fwd="$fwd
$val" rev="$val
$rev";;
  esac
done <"$created"
rm -f -- "$created"
IFS='
'
for d in $rev; do rmdir -- "$d" 2>/dev/null && echo "removed directory $d"; done
left=
for d in $fwd; do [ -d "$d" ] && left="$left
$d"; done
if [ -z "$left" ] && [ -n "$state" ] && rmdir -- ` + StateDir + ` 2>/dev/null; then
  echo "removed directory ` + StateDir + `"
elif [ -n "$left" ] || [ -n "$state" ]; then
  if [ -n "$state" ] && [ -d ` + StateDir + ` ]; then made dir ` + StateDir + `; fi
  for d in $left; do made dir "$d"; done
fi
true
`

// RemoveCreated removes from the node what faultline made there for itself
// and recorded in CreatedFile (uploaded binaries, the delay agent's files,
// the directories it made for them) and returns one line per thing removed.
// It runs last in a heal, once nothing faultline started runs from those
// files. A local node has nothing to remove: its files are in the run's own
// directory.
func RemoveCreated(ctx context.Context, r Remote) ([]string, error) {
	if _, ok := r.(Processes); ok {
		return nil, nil
	}
	res, err := r.Run(ctx, Cmd{Argv: []string{"sh", "-c", removeCreatedScript, "faultline-remove-created"},
		Timeout: time.Minute, Label: "remove what faultline made on the node"})
	if err != nil {
		return nil, fmt.Errorf("node %s: remove what faultline made: %w", r.Node(), err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// RemoveCreatedEverywhere is RemoveCreated on every node of pool, in
// parallel. It returns the lines of each node that removed something and
// every failure.
func RemoveCreatedEverywhere(ctx context.Context, pool *Pool) (map[string][]string, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	rep := map[string][]string{}
	for _, n := range pool.Nodes() {
		wg.Go(func() {
			r, err := pool.Remote(ctx, n.Name)
			var lines []string
			if err == nil {
				lines, err = RemoveCreated(ctx, r)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(lines) > 0 {
				rep[n.Name] = lines
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", n.Name, err))
			}
		})
	}
	wg.Wait()
	return rep, errors.Join(errs...)
}
