package check

import "testing"

func TestExactlyOnce(t *testing.T) {
	pay := func(p, typ, id string) string {
		return `{:process ` + p + ` :type :` + typ + ` :f :pay :value {:order "` + id + `" :amount 5}}`
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
	c, err := ExactlyOnce(ExactlyOnceOptions{Key: "order"})
	if err != nil {
		t.Fatal(err)
	}
	retried := []string{pay("0", "invoke", "o1"), pay("0", "info", "o1"), pay("1", "invoke", "o1"), pay("1", "ok", "o1")}
	runVerdicts(t, c, []verdictCase{
		{"retry committed once", cat(retried, dump(`[{:order "o1" :amount 5}]`)), Valid, 3, "0 duplicated, 0 lost"},
		{"retry committed twice", cat(retried, dump(`[{:order "o1"} {:order "o1"}]`)), Invalid, 3, `"o1" committed 2 times (1 ok, 1 info attempts)`},
		{"acknowledged, never committed", cat(retried, dump(`[]`)), Invalid, 3, `"o1" acknowledged 1 times, never committed`},
		{"info attempt not committed", cat([]string{pay("0", "invoke", "o2"), pay("0", "info", "o2")}, dump(`#{}`)), Valid, 2, "0 lost"},
		{"bare keys in a map dump", cat(retried, dump(`{:a "o1" :b "o9"}`)), Invalid, 3, `committed with no attempt: "o9"`},
		{"no dump", retried, Unknown, 2, "no ok :dump"},
		{"no business key", []string{`{:process 0 :type :invoke :f :pay :value 5}`, `{:process 0 :type :ok :f :pay :value 5}`}, Unknown, 0, `business key "order"`},
		{"dump record without key", cat(retried, dump(`[{:id 1}]`)), Unknown, 0, `has no "order" field`},
	})
	if _, err := ExactlyOnce(ExactlyOnceOptions{}); err == nil {
		t.Error("ExactlyOnce without a key: no error")
	}
}
