package check

import (
	"fmt"
	"slices"
)

// Signature names the anomalies an invalid result found, one string each:
// "linearizable key=K" for a linearizability failure on key K, the anomaly
// type ("G-single", "G1c", ...) for a transactional checker, the checker's
// name otherwise; children of compose included. A valid or unknown result
// has none. Replays compare signatures to say whether they reproduced the
// same anomaly on the same keys. It works on results read back from
// checker.json as well (JSON numbers and lists).
func Signature(r Result) []string {
	var out []string
	var walk func(r Result)
	walk = func(r Result) {
		if r.Valid != Invalid {
			return
		}
		if len(r.Children) > 0 {
			for _, c := range r.Children {
				walk(c)
			}
			return
		}
		switch {
		case r.Details["failing_key"] != nil:
			out = append(out, fmt.Sprintf("%s key=%v", r.Checker, r.Details["failing_key"]))
		case r.Details["anomaly_types"] != nil:
			switch ts := r.Details["anomaly_types"].(type) {
			case []string:
				out = append(out, ts...)
			case []any:
				for _, t := range ts {
					out = append(out, fmt.Sprint(t))
				}
			}
		default:
			out = append(out, r.Checker)
		}
	}
	walk(r)
	slices.Sort(out)
	return slices.Compact(out)
}
