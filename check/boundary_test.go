package check

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

func TestBoundary(t *testing.T) {
	// op is one invoke/completion pair of tenant who on key k.
	op := func(p, who, f, k, inv, typ, out string) []string {
		return []string{
			`{:process ` + p + ` :type :invoke :f :` + f + ` :key "` + k + `" :tenant "` + who + `" :value ` + inv + `}`,
			`{:process ` + p + ` :type :` + typ + ` :f :` + f + ` :key "` + k + `" :tenant "` + who + `" :value ` + out + `}`,
		}
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	ownWrite := op("0", "acme", "write", "acme/1", `"acme/v1"`, "ok", `"acme/v1"`)
	ownRead := op("0", "acme", "read", "acme/1", "nil", "ok", `"acme/v1"`)
	corpWrite := op("1", "acme-corp", "write", "acme-corp/1", `"c1"`, "ok", `"c1"`)
	deniedRead := op("1", "acme-corp", "read", "acme/1", "nil", "fail", "nil")
	emptyRead := op("1", "acme-corp", "read", "acme/1", "nil", "ok", "nil")
	c, err := Boundary(BoundaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runVerdicts(t, c, []verdictCase{
		{"isolated, both controls", cat(ownWrite, corpWrite, ownRead, deniedRead, emptyRead), Valid, 5, "(1 positive, 2 negative controls)"},
		{"cross-tenant read returns data", cat(ownWrite, op("1", "acme-corp", "read", "acme/1", "nil", "ok", `"acme/v1"`)), Invalid, 2,
			"tenant acme-corp read acme/v1 from tenant acme's key acme/1"},
		{"own list shows another tenant's key", cat(ownWrite, corpWrite, op("1", "acme-corp", "list", "acme-corp/", "nil", "ok", `["acme-corp/1" "acme/1"]`)), Invalid, 3,
			`contains "acme/1" of tenant acme`},
		{"prefix collision is not a leak", cat(ownWrite, corpWrite, ownRead, op("0", "acme", "list", "acme/", "nil", "ok", `["acme/1"]`)), Valid, 4, "no cross-tenant data"},
		{"value only another tenant wrote", cat(ownWrite, corpWrite, op("0", "acme", "read", "acme/1", "nil", "ok", `"c1"`)), Invalid, 3, `contains "c1", written only by acme-corp`},
		{"denied write leaves a trace", cat(ownWrite, op("1", "acme-corp", "write", "acme/1", `"evil"`, "fail", `"evil"`), op("0", "acme", "read", "acme/1", "nil", "ok", `"evil"`)), Invalid, 3,
			"a denied attempt left a trace"},
		{"cross-tenant write accepted", cat(ownWrite, ownRead, op("1", "acme-corp", "write", "acme/1", `"x"`, "ok", `"x"`)), Invalid, 3, "tenant acme-corp wrote into tenant acme's key acme/1"},
		{"no positive control", cat(deniedRead, emptyRead), Unknown, 2, "no positive control"},
		{"no tenant", []string{`{:process 0 :type :invoke :f :read :key 1 :value nil}`, `{:process 0 :type :ok :f :read :key 1 :value 3}`}, Unknown, 0, "no client op has a tenant"},
	})
}

// The control counts are the details the verdict's positive-only audit reads.
func TestBoundaryControls(t *testing.T) {
	h := testhist.EDN(t,
		`{:process 0 :type :invoke :f :read :key "a/1" :value nil}`, `{:process 0 :type :ok :f :read :key "a/1" :value "a/x"}`,
		`{:process 1 :type :invoke :f :read :key "a/1" :tenant "b" :value nil}`, `{:process 1 :type :fail :f :read :key "a/1" :tenant "b" :value nil}`,
		`{:process 1 :type :invoke :f :read :key "b/1" :value nil}`, `{:process 1 :type :ok :f :read :key "b/1" :value "b/y"}`,
	)
	c, _ := Boundary(BoundaryOptions{})
	r := run(t, c, h)
	if r.Valid != Valid || r.Details["positive_controls"] != 2 || r.Details["negative_controls"] != 1 {
		t.Fatalf("got %s %v: %s", r.Valid, r.Details, r.Summary)
	}
	// Positive controls only: still valid, but the blind spot says so.
	r = run(t, c, h[:2])
	if r.Valid != Valid || r.Details["negative_controls"] != 0 || !strings.Contains(strings.Join(r.BlindSpots, "\n"), "no negative control") {
		t.Fatalf("positive only: got %s %v %q", r.Valid, r.Details, r.BlindSpots)
	}
}

// Controls reads the counts through a compose, as a scenario's checker has.
func TestControls(t *testing.T) {
	h := testhist.EDN(t,
		`{:process 0 :type :invoke :f :read :key "a/1" :value nil}`, `{:process 0 :type :ok :f :read :key "a/1" :value "a/x"}`,
		`{:process 1 :type :invoke :f :read :key "a/1" :tenant "b" :value nil}`, `{:process 1 :type :ok :f :read :key "a/1" :tenant "b" :value nil}`,
	)
	b, _ := Boundary(BoundaryOptions{})
	r := run(t, Compose(b, Stats()), h)
	if p, n, ok := Controls(r); !ok || p != 1 || n != 1 {
		t.Fatalf("Controls = %d, %d, %v from %+v", p, n, ok, r)
	}
	if _, _, ok := Controls(run(t, Stats(), h)); ok {
		t.Error("Controls found a boundary result in a stats-only check")
	}
}

// Tenant names that share a prefix or contain the separator are attributed
// by the longest named tenant followed by the separator, not by the text
// before the first separator: "acme-corp-4" with sep "-" is acme-corp's.
func TestBoundaryOwnerAttribution(t *testing.T) {
	tenants := func(names ...string) []clientOp {
		var ops []clientOp
		for _, n := range names {
			inv := &history.Op{Type: history.Invoke, F: "read", Extra: map[string]any{"tenant": n}}
			ops = append(ops, clientOp{inv: inv, comp: inv})
		}
		return ops
	}
	cases := []struct {
		name  string
		sep   string
		names []string
		key   any
		want  string
	}{
		{"plain", "/", []string{"acme", "acme-corp"}, "acme/44", "acme"},
		{"shared prefix, slash", "/", []string{"acme", "acme-corp"}, "acme-corp/44", "acme-corp"},
		{"shared prefix, dash separator", "-", []string{"acme", "acme-corp"}, "acme-corp-44", "acme-corp"},
		{"shorter tenant under dash separator", "-", []string{"acme", "acme-corp"}, "acme-44", "acme"},
		{"name contains the separator", "/", []string{"acme", "acme/eu"}, "acme/eu/3", "acme/eu"},
		{"shorter of two slash names", "/", []string{"acme", "acme/eu"}, "acme/3", "acme"},
		{"prefix without separator is not a match", "/", []string{"acme"}, "acmecorp/3", "acmecorp"},
		{"case differs", "/", []string{"acme", "Acme"}, "Acme/1", "Acme"},
		{"trailing space name", "/", []string{"acme", "acme "}, "acme /1", "acme "},
		{"percent-encoded slash", "/", []string{"a", "a%2Fb"}, "a%2Fb/1", "a%2Fb"},
		{"tenant name alone is no key of it", "/", []string{"acme"}, "acme", ""},
		{"no separator", "/", []string{"acme"}, "44", ""},
		{"empty owner", "/", []string{"acme"}, "/44", ""},
		{"not a string", "/", []string{"acme"}, 44, ""},
		{"unnamed tenant falls back to first separator", "/", nil, "globex/1", "globex"},
		{"multi-char separator", "::", []string{"acme", "acme::corp"}, "acme::corp::1", "acme::corp"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := boundary{o: BoundaryOptions{Tenant: "tenant", Sep: tc.sep}}
			if got := c.newOwners(tenants(tc.names...)).owner(tc.key); got != tc.want {
				t.Fatalf("owner(%v) with tenants %q sep %q = %q, want %q", tc.key, tc.names, tc.sep, got, tc.want)
			}
		})
	}
}

// A clean run of tenants whose names share a prefix, with a separator that
// also occurs in the names, is valid: nobody wrote into anyone else's keys.
// Before longest-match attribution acme-corp's own writes to "acme-corp-1"
// were reported as "tenant acme-corp wrote into tenant acme's key".
func TestBoundaryPrefixTenantsClean(t *testing.T) {
	op := func(p, who, f, k, inv, typ, out string) []string {
		return []string{
			`{:process ` + p + ` :type :invoke :f :` + f + ` :key "` + k + `" :tenant "` + who + `" :value ` + inv + `}`,
			`{:process ` + p + ` :type :` + typ + ` :f :` + f + ` :key "` + k + `" :tenant "` + who + `" :value ` + out + `}`,
		}
	}
	var lines []string
	for _, p := range [][]string{
		op("0", "acme", "write", "acme-1", `"acme-v1"`, "ok", `"acme-v1"`),
		op("1", "acme-corp", "write", "acme-corp-1", `"acme-corp-v1"`, "ok", `"acme-corp-v1"`),
		op("0", "acme", "read", "acme-1", "nil", "ok", `"acme-v1"`),
		op("1", "acme-corp", "read", "acme-corp-1", "nil", "ok", `"acme-corp-v1"`),
		op("1", "acme-corp", "list", "acme-corp-", "nil", "ok", `["acme-corp-1"]`),
		op("1", "acme-corp", "read", "acme-1", "nil", "fail", "nil"),
	} {
		lines = append(lines, p...)
	}
	c, err := Boundary(BoundaryOptions{Sep: "-"})
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, c, testhist.EDN(t, lines...))
	if r.Valid != Valid {
		t.Fatalf("got %s: %s\n%s", r.Valid, r.Summary, r.Explanation)
	}
	// The same names still catch a real leak: acme reads acme-corp's value.
	leak := append(append([]string{}, lines...), op("0", "acme", "read", "acme-1", "nil", "ok", `"acme-corp-v1"`)...)
	r = run(t, c, testhist.EDN(t, leak...))
	if r.Valid != Invalid || !strings.Contains(r.Summary, `contains "acme-corp-v1" of tenant acme-corp`) {
		t.Fatalf("leak: got %s: %s", r.Valid, r.Summary)
	}
}
