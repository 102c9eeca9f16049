package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/faultline/faultline/control"
)

// File corruption faults damage a file of the system under test, as a
// torn write or a bad sector would: truncate-file cuts it, bitflip-file
// flips bits in it. They have no heal (the damage is the system's to
// detect and repair), so they open no fault window; their landing evidence
// is the file read back before and after: size and sha256.

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
const corruptScript = `mode=$1 f=$2 a=$3 b=$4
[ -f "$f" ] || { echo "no file $f" >&2; exit 1; }
sum() { echo "$(stat -c %s -- "$f") $(sha256sum -- "$f" | cut -d' ' -f1)"; }
echo "before $(sum)"
case $mode in
truncate) truncate -s "$a" -- "$f" || exit 1;;
bitflip)
  size=$(stat -c %s -- "$f")
  [ "$size" -gt 0 ] || { echo "file $f is empty: no bit to flip" >&2; exit 1; }
  off=$((a % size))
  byte=$(od -An -tu1 -j "$off" -N1 -- "$f" | tr -d ' ')
  new=$((byte ^ (1 << b)))
  printf "\\$(printf %o "$new")" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none || exit 1
  echo "offset $off";;
esac
echo "after $(sum)"
`

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
		out, err := runScript(ctx, r, f+" "+file, corruptScript, mode, file, strconv.FormatInt(a, 10), strconv.FormatInt(b, 10))
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
