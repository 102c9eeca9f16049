package check

import "testing"

func TestNoLostAck(t *testing.T) {
	w := func(p, typ, k, v string) string {
		return `{:process ` + p + ` :type :` + typ + ` :f :write :key ` + k + ` :value ` + v + `}`
	}
	dump := func(v string) []string {
		return []string{`{:process 9 :type :invoke :f :dump :value nil}`, `{:process 9 :type :ok :f :dump :value ` + v + `}`}
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	runVerdicts(t, NoLostAck(NoLostAckOptions{}), []verdictCase{
		{"present", cat([]string{w("0", "invoke", ":x", "1"), w("0", "ok", ":x", "1")}, dump(`{:x 1}`)), Valid, 2, "1 acknowledged writes, 0 lost"},
		{"lost", cat([]string{w("0", "invoke", ":x", "1"), w("0", "ok", ":x", "1"),
			w("0", "invoke", ":y", "2"), w("0", "ok", ":y", "2")}, dump(`{:x 1}`)), Invalid, 3, "op 3 (process 0) write y=2"},
		{"overwritten by a later write", cat([]string{w("0", "invoke", ":x", "1"), w("0", "ok", ":x", "1"),
			w("1", "invoke", ":x", "2"), w("1", "info", ":x", "2")}, dump(`{:x 2}`)), Valid, 2, "1 overwritten"},
		{"overwritten by an earlier write is lost", cat([]string{w("1", "invoke", ":x", "2"), w("1", "ok", ":x", "2"),
			w("0", "invoke", ":x", "1"), w("0", "ok", ":x", "1")}, dump(`{:x 2}`)), Invalid, 3, "write x=1"},
		{"collection entry", cat([]string{w("0", "invoke", ":x", "1"), w("0", "ok", ":x", "1")}, dump(`{:x [0 1]}`)), Valid, 2, "0 lost"},
		{"info write not judged", cat([]string{w("0", "invoke", ":x", "1"), w("0", "ok", ":x", "1"),
			w("1", "invoke", ":y", "2"), w("1", "info", ":y", "2")}, dump(`{:x 1}`)), Valid, 2, "1 unacknowledged not judged"},
		{"no dump", []string{w("0", "invoke", ":x", "1"), w("0", "ok", ":x", "1")}, Unknown, 1, "no ok :dump"},
		{"nothing acknowledged", []string{w("0", "invoke", ":x", "1"), w("0", "fail", ":x", "1")}, Unknown, 0, "no acknowledged"},
	})
	// A cas is a write of the second element of its [from, to] value: it
	// replaces an earlier write, and is itself judged.
	cas := func(p, typ, k, v string) string {
		return `{:process ` + p + ` :type :` + typ + ` :f :cas :key ` + k + ` :value ` + v + `}`
	}
	runVerdicts(t, NoLostAck(NoLostAckOptions{}), []verdictCase{
		{"cas overwrites an acknowledged write", cat([]string{w("0", "invoke", ":k", "5"), w("0", "ok", ":k", "5"),
			cas("1", "invoke", ":k", "[5 7]"), cas("1", "ok", ":k", "[5 7]")}, dump(`{:k 7}`)), Valid, 3, "2 acknowledged writes, 0 lost from the final dump (op 5); 1 overwritten"},
		{"write lost with no later write or cas", cat([]string{w("0", "invoke", ":k", "5"), w("0", "ok", ":k", "5")}, dump(`{:k 3}`)),
			Invalid, 2, "op 1 (process 0) write k=5"},
		{"acknowledged cas lost", cat([]string{w("0", "invoke", ":k", "5"), w("0", "ok", ":k", "5"),
			cas("1", "invoke", ":k", "[5 7]"), cas("1", "ok", ":k", "[5 7]")}, dump(`{:k 5}`)), Invalid, 3, "op 3 (process 1) cas k=[5 7]"},
		{"failed cas is no write", cat([]string{w("0", "invoke", ":k", "5"), w("0", "ok", ":k", "5"),
			cas("1", "invoke", ":k", "[4 7]"), cas("1", "fail", ":k", "[4 7]")}, dump(`{:k 7}`)), Invalid, 2, "op 1 (process 0) write k=5"},
		{"malformed cas is not judged", cat([]string{cas("1", "invoke", ":k", "7"), cas("1", "ok", ":k", "7")}, dump(`{:k 3}`)),
			Unknown, 0, "no acknowledged"},
	})
	runVerdicts(t, NoLostAck(NoLostAckOptions{Writes: []string{"add"}, Final: "read"}), []verdictCase{
		{"unkeyed adds against a set", []string{"0 :invoke :add 1", "0 :ok :add 1", "0 :invoke :add 2", "0 :ok :add 2",
			"0 :invoke :read nil", "0 :ok :read #{1}"}, Invalid, 3, "op 3 (process 0) add 2"},
	})
}
