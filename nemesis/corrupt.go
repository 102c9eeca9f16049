package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/faultline/faultline/control"
)

// File corruption faults damage a file of the system under test, as a
// torn write or a bad sector would: truncate-file cuts it, bitflip-file
// flips bits in it. They have no heal while the run lasts (the damage is
// the system's to detect and repair), so they open no fault window; their
// landing evidence is the file read back before and after: size and
// sha256. What they change is kept on the node and put back when the run
// is over (RestoreKept), so a path that named a file of the node's own
// does not stay damaged.

func init() {
	for _, f := range []string{"truncate-file", "bitflip-file"} {
		register(Fault{
			Name: strings.ReplaceAll(f, "-", "_"), Inject: f,
			NoEnd:   "the damage stays: detecting and repairing it is the system's job",
			Landing: "the file's size and sha256 read back before and after differ",
			Validate: func(v any) error {
				m, _ := v.(map[string]any)
				file, _ := m["path"].(string)
				if file == "" || intArg(m["size"]) < 0 || intArg(m["offset"]) < 0 || intArg(m["bit"]) < 0 || intArg(m["bit"]) > 7 {
					return errors.New("want a path, a size and offset not negative, a bit in 0..7")
				}
				return nil
			},
			inject: func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.corruptFile(ctx, f, v) },
		})
	}
}

// corruptScript damages file $2 (mode $1: truncate to $3 bytes, or flip
// bit $4 of byte $3) and prints "before SIZE SHA" and "after SIZE SHA".
// First, unless $5 is "nokeep", it keeps what it will change (keepFn), so
// the file can be put back byte for byte when the run is over
// (RestoreKept): the damage is the system's to detect while the run lasts,
// never the node's to keep.
const corruptScript = stateLib + keepFn + `mode=$1 f=$2 a=$3 b=$4
[ "$5" = nokeep ] && keep() { kept=/dev/null; }
[ -f "$f" ] || { echo "no file $f" >&2; exit 1; }
sum() { echo "$(stat -c %s -- "$f") $(sha256sum -- "$f" | cut -d' ' -f1)"; }
echo "before $(sum)"
size=$(stat -c %s -- "$f")
case $mode in
truncate) keep "$f" truncate "$((a < size ? a : size))" "$size" || exit 1
  truncate -s "$a" -- "$f" || exit 1;;
bitflip)
  [ "$size" -gt 0 ] || { echo "file $f is empty: no bit to flip" >&2; exit 1; }
  off=$((a % size))
  keep "$f" bitflip "$off" "$size" || exit 1
  byte=$(od -An -tu1 -j "$off" -N1 -- "$f" | tr -d ' ')
  new=$((byte ^ (1 << b)))
  printf "\\$(printf %o "$new")" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none || exit 1
  echo "offset $off";;
esac
[ "$kept" = /dev/null ] || sha256sum -- "$f" | cut -d' ' -f1 >"$kept/after"
echo "after $(sum)"
`

// KeptDir is the prefix of the directories in which a file fault keeps the
// bytes it changes; they are outside /run (a tmpfs, in memory) since a cut
// tail can be large, and unique (mktemp), since nodes may share /var/tmp.
const KeptDir = "/var/tmp/faultline-kept."

// keepFn is shared shell: keep FILE MODE OFFSET SIZE records (state kind
// "kept") a new directory holding FILE's path, MODE, OFFSET, its SIZE and
// its bytes from OFFSET (truncate: the tail it cuts; bitflip: the byte it
// flips), and leaves the directory in $kept; the caller writes the file's
// sha256 after the damage into $kept/after.
const keepFn = `keep() {
  kept=$(mktemp -d ` + KeptDir + `XXXXXX) || return 1
  note kept "$kept" || { rm -rf "$kept"; return 1; }
  printf '%s' "$1" >"$kept/path" && echo "$2 $3 $4" >"$kept/how" || return 1
  case $2 in
  truncate) tail -c +"$(($3 + 1))" -- "$1" >"$kept/bytes";;
  bitflip) dd if="$1" of="$kept/bytes" bs=1 skip="$3" count=1 status=none;;
  esac
}
`

// restoreScript puts back, latest first, every file a file fault damaged
// on the node, from what keepFn kept: only a file still exactly as the
// fault left it (its sha256), since one the system rewrote meanwhile is
// the system's; a file gone (a db teardown removed it) needs nothing. It
// forgets each record and removes its directory, and prints one line per
// file.
const restoreScript = stateLib + `[ -f "$state" ] || exit 0
for d in $(sed -n 's/^kept //p' "$state" | sed -n '1!G;h;$p'); do
  # Only a directory keepFn made; any other record is forgotten, what it names untouched.
  case $d in ` + KeptDir + `*/*|*..*) forget kept "$d"; continue;; ` + KeptDir + `*) ;; *) forget kept "$d"; continue;; esac
  f=$(cat "$d/path" 2>/dev/null)
  read -r mode off size <"$d/how" 2>/dev/null
  if [ -z "$f" ] || [ ! -f "$f" ] || [ ! -f "$d/after" ]; then :
  elif [ "$(sha256sum -- "$f" | cut -d' ' -f1)" != "$(cat "$d/after")" ]; then echo "left $f as it is: changed since the fault"
  else
    case $mode in
    truncate) truncate -s "$off" -- "$f" && cat "$d/bytes" >>"$f" && truncate -s "$size" -- "$f" && echo "restored $f";;
    bitflip) dd if="$d/bytes" of="$f" bs=1 seek="$off" conv=notrunc status=none && echo "restored $f";;
    esac
  fi
  rm -rf -- "$d"
  forget kept "$d"
done
[ -s "$state" ] || rm -f "$state"
true
`

// RestoreKept puts back, on every node of pool, the files file faults
// damaged (truncate-file, bitflip-file), byte for byte, when they are still
// as the fault left them. A run calls it after its db teardown (which
// removes the db's own files), faultline heal after the rest: the damage is
// the system's to face while the run lasts, and a path that named a file of
// the node's own is given back. It returns what it did per node.
func RestoreKept(ctx context.Context, pool *control.Pool) (HealReport, error) {
	var (
		mu   sync.Mutex
		errs []error
	)
	rep := HealReport{}
	var wg sync.WaitGroup
	for _, n := range pool.Nodes() {
		wg.Go(func() {
			r, err := pool.Remote(ctx, n.Name)
			var out string
			if err == nil {
				if _, local := r.(control.Processes); local {
					return
				}
				out, err = runScript(ctx, r, "restore the files file faults damaged", restoreScript)
			}
			mu.Lock()
			defer mu.Unlock()
			if lines := nonEmpty(out); len(lines) > 0 {
				rep[n.Name] = lines
			}
			if err != nil {
				errs = append(errs, &NodeHealError{Node: n.Name, Err: err})
			}
		})
	}
	wg.Wait()
	return rep, errors.Join(errs...)
}

// corruptFile truncates or bit-flips a file on the targets. Value:
// {"nodes", "path", "size": bytes to keep (truncate), "offset", "bit"
// (bitflip; the offset wraps at the file's size)}.
func (w *Worker) corruptFile(ctx context.Context, f string, v any) (outcome, error) {
	m, _ := v.(map[string]any)
	file, _ := m["path"].(string)
	if file == "" {
		return outcome{value: v}, fmt.Errorf("%s: no file path", f)
	}
	if err := checkNoControl("path", file); err != nil {
		return outcome{value: v}, fmt.Errorf("%s: %w", f, err)
	}
	targets, err := w.targets(ctx, f, m["nodes"])
	if err != nil {
		return outcome{value: v}, err
	}
	mode, a, b := "truncate", intArg(m["size"]), int64(0)
	if f == "bitflip-file" {
		mode, a, b = "bitflip", intArg(m["offset"]), intArg(m["bit"])%8
		if a == 0 {
			a = w.rng.Int64N(1 << 40) // a seeded offset: the run replays it
		}
	}
	landed := newVerdict()
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		// A local node's files are in its directory of the run, which ends
		// with the run: nothing of the host's to keep or put back.
		keep := "keep"
		if _, local := r.(control.Processes); local {
			keep = "nokeep"
		}
		out, err := runScript(ctx, r, f+" "+file, corruptScript, mode, file, strconv.FormatInt(a, 10), strconv.FormatInt(b, 10), keep)
		e := map[string]any{}
		for _, l := range nonEmpty(out) {
			k, rest, _ := strings.Cut(l, " ")
			e[k] = rest
		}
		// Landed when the content read back differs from before.
		if err != nil || e["before"] == nil || e["after"] == nil || e["before"] == e["after"] {
			landed.fail()
		}
		return e, err
	})
	val := map[string]any{"nodes": strs(targets), "path": file}
	if mode == "truncate" {
		val["size"] = a
	} else {
		val["offset"], val["bit"] = a, b
	}
	return outcome{value: val, evidence: ev, landed: landed.ok() && err == nil, applied: true}, err
}

// intArg reads an integer argument (0 when absent).
func intArg(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}
