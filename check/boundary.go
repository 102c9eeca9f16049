package check

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "boundary",
		NoModel: "faultline check has no flags for how keys name their tenant (tenant=, sep=, reads=)",
		Plan:    []string{"boundary"},
		Mutants: []string{"boundary"},
	})
}

// BoundaryOptions configures Boundary.
type BoundaryOptions struct {
	// Tenant is the op field (Op.Extra on the invocation or the completion)
	// naming the tenant that issues the op; default "tenant". An op without
	// it is issued by the tenant that owns its key.
	Tenant string
	// Sep separates a key's owning tenant from the rest: "acme/7" is owned by
	// "acme"; default "/". A key without it has no owner. Names may share a
	// prefix or contain Sep: a key belongs to the longest tenant named in a
	// tenant field that, followed by Sep, starts it ("acme-corp/7" is
	// acme-corp's, not acme's, even with Sep "-").
	Sep string
	// Reads are the functions whose responses are searched for other tenants'
	// data; default read, get, list, scan, export, dump and search. Every
	// other function is a write-like attempt.
	Reads []string
}

// defaultBoundaryReads are the read-like functions of the surfaces a boundary
// plan names: the query API (read, get, list, scan, search) and bulk paths
// (export, dump).
var defaultBoundaryReads = []string{"read", "get", "list", "scan", "export", "dump", "search"}

// Boundary returns the tenant-isolation checker (spec §1.7, boundary
// claims): no response shows one tenant another tenant's data, and the
// plan's positive and negative controls are counted so a verdict can refuse a
// run that tried only one side.
//
// Each client op has an issuing tenant (Op.Extra[Tenant], else its key's
// owner) and its key an owner (the key's prefix before Sep). Then:
//   - a leak (violation) is an ok read-like response that contains a string
//     key or value "<other>/..." of another known tenant, or a string value
//     only another tenant wrote; or an ok cross-tenant op (a tenant reading
//     another's key and getting a non-empty answer, or writing into it); or
//     a response that contains the value of a write that was denied;
//   - a positive control is an ok read-like op of a tenant's own key that
//     returned data: the surface works, so its silence about others means
//     something;
//   - a negative control is a cross-tenant attempt that left no trace: it
//     failed (denied), or answered nothing (nil, "", empty collection).
//
// Invalid on any leak. Unknown when no op has a tenant, or when there is no
// positive control: a surface that returns nothing to anyone passes
// isolation vacuously. Details report "positive_controls" and
// "negative_controls" (ints) for the verdict's positive-only audit.
func Boundary(o BoundaryOptions) (Checker, error) {
	if o.Tenant == "" {
		o.Tenant = "tenant"
	}
	if o.Sep == "" {
		o.Sep = "/"
	}
	if len(o.Reads) == 0 {
		o.Reads = defaultBoundaryReads
	}
	o.Reads = slices.Clone(o.Reads)
	return boundary{o: o}, nil
}

type boundary struct{ o BoundaryOptions }

// Name implements Checker.
func (boundary) Name() string { return "boundary" }

// String describes the checker as it would be written in a scenario.
func (c boundary) String() string {
	return fmt.Sprintf("check.boundary(tenant=%q, sep=%q, reads=%s)", c.o.Tenant, c.o.Sep, quoteList(c.o.Reads))
}

// declared is the tenant an op names in its tenant field ("" when it names
// none).
func (c boundary) declared(op clientOp) string {
	for _, o := range []*history.Op{op.inv, op.comp} {
		if o == nil {
			continue
		}
		if v, ok := o.Extra[c.o.Tenant]; ok && v != nil {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// owners attributes keys and string values to tenants. Tenant names may
// share a prefix ("acme", "acme-corp") or contain the separator ("acme/eu"),
// so the owner of "acme-corp/4" is not whatever precedes the first
// separator: it is the longest tenant t named by an op such that the string
// starts with t+sep. Only a string no named tenant matches falls back to its
// text before the first separator (a tenant that owns keys but never issued
// an op of its own).
type owners struct {
	sep   string
	known []string // tenants named in a tenant field, longest first
}

// newOwners collects the tenants that ops name in their tenant field.
func (c boundary) newOwners(ops []clientOp) owners {
	seen := map[string]bool{}
	var known []string
	for _, op := range ops {
		if t := c.declared(op); t != "" && !seen[t] {
			seen[t] = true
			known = append(known, t)
		}
	}
	sort.Slice(known, func(i, j int) bool {
		if len(known[i]) != len(known[j]) {
			return len(known[i]) > len(known[j])
		}
		return known[i] < known[j]
	})
	return owners{sep: c.o.Sep, known: known}
}

// owner is the tenant owning key k ("" for a key with no tenant prefix).
func (w owners) owner(k any) string {
	s, ok := k.(string)
	if !ok {
		return ""
	}
	for _, t := range w.known {
		if strings.HasPrefix(s, t+w.sep) {
			return t
		}
	}
	t, _, found := strings.Cut(s, w.sep)
	if !found || t == "" {
		return ""
	}
	return t
}

// issuer is the tenant issuing op: its tenant field, else its key's owner.
func (c boundary) issuer(w owners, op clientOp) string {
	if t := c.declared(op); t != "" {
		return t
	}
	return w.owner(op.key())
}

// emptyResponse reports whether v shows nothing: nil, "", or an empty
// collection.
func emptyResponse(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case history.Set:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// walkStrings walks v and calls fn on every string in it: map keys, values and
// collection elements.
func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case history.Keyword:
		fn(string(x))
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case history.Set:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case map[string]any:
		for k, e := range x {
			fn(k)
			walkStrings(e, fn)
		}
	}
}

// Check implements Checker.
func (c boundary) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"sees only what the history records: a leak through a metric, log or audit path needs an op that reads that path",
		"recognises another tenant's data by its key prefix or by string values only that tenant wrote; numbers are not attributed",
		"a key belongs to the longest tenant named in a tenant field that prefixes it before the separator; a tenant that never names itself is read as the text before the first separator",
		"an info (timed-out) cross-tenant op is neither a control nor a leak",
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	w := c.newOwners(ops)
	// First pass: the tenants, who wrote which string values, and the values
	// of denied writes, which must never show up afterwards.
	tenants := map[string]bool{}
	writers := map[string]map[string]bool{} // string value -> tenants whose non-failed writes carried it
	denied := map[string]string{}           // value of a denied cross-tenant write -> its description
	for _, op := range ops {
		who := c.issuer(w, op)
		if who == "" {
			continue
		}
		tenants[who] = true
		if o := w.owner(op.key()); o != "" {
			tenants[o] = true
		}
		if slices.Contains(c.o.Reads, op.inv.F) {
			continue
		}
		s, ok := op.inv.Value.(string)
		if !ok || s == "" {
			continue
		}
		if op.outcome() == history.Fail {
			if o := w.owner(op.key()); o != "" && o != who {
				denied[s] = fmt.Sprintf("op %d (%s %s by %s, denied)", op.inv.Index, op.inv.F, fmtKey(op.key()), who)
			}
			continue
		}
		if writers[s] == nil {
			writers[s] = map[string]bool{}
		}
		writers[s][who] = true
	}
	var leaks []string
	positive, negative, judged, crossInfo := 0, 0, 0, 0
	for _, op := range ops {
		who := c.issuer(w, op)
		if who == "" {
			continue
		}
		judged++
		owner := w.owner(op.key())
		read := slices.Contains(c.o.Reads, op.inv.F)
		cross := owner != "" && owner != who
		switch out := op.outcome(); {
		case cross && out == history.Fail:
			negative++
			continue
		case cross && out == history.Info:
			crossInfo++
			continue
		case cross && read && emptyResponse(op.comp.Value):
			negative++
			continue
		case cross:
			what := "wrote into"
			if read {
				what = fmt.Sprintf("read %s from", fmtValue(op.comp.Value))
			}
			leaks = append(leaks, fmt.Sprintf("op %d: tenant %s %s tenant %s's key %s", op.comp.Index, who, what, owner, fmtKey(op.key())))
			continue
		case out != history.OK || !read:
			continue
		}
		// An ok read-like response of the issuer's own (or unowned) key:
		// search it for anything of another tenant.
		v := op.comp.Value
		if owner == who && !emptyResponse(v) {
			positive++
		}
		found := map[string]bool{}
		walkStrings(v, func(s string) {
			if found[s] {
				return
			}
			if o := w.owner(s); o != "" && o != who && tenants[o] {
				found[s] = true
				leaks = append(leaks, fmt.Sprintf("op %d: tenant %s's %s response contains %q of tenant %s", op.comp.Index, who, op.inv.F, s, o))
				return
			}
			if ws := writers[s]; len(ws) > 0 && !ws[who] {
				found[s] = true
				leaks = append(leaks, fmt.Sprintf("op %d: tenant %s's %s response contains %q, written only by %s", op.comp.Index, who, op.inv.F, s, strings.Join(sortedKeys(ws), ", ")))
				return
			}
			// A denied write's value that no accepted write carried too
			// can only be there because the denial did not hold.
			if d, ok := denied[s]; ok && len(writers[s]) == 0 {
				found[s] = true
				leaks = append(leaks, fmt.Sprintf("op %d: tenant %s's %s response contains %q of %s: a denied attempt left a trace", op.comp.Index, who, op.inv.F, s, d))
			}
		})
	}
	if judged == 0 {
		return nothingToCheck(c.Name(), fmt.Sprintf("no client op has a tenant (field %q or a key prefix before %q)", c.o.Tenant, c.o.Sep), blind)
	}
	names := sortedKeys(tenants)
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: judged, Keys: len(names)}, BlindSpots: blind,
		Details: map[string]any{"positive_controls": positive, "negative_controls": negative, "tenants": names,
			"leaks": len(leaks), "cross_tenant_info": crossInfo}}
	switch {
	case len(leaks) > 0:
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d cross-tenant leaks over %d ops of %d tenants; first: %s", len(leaks), judged, len(names), leaks[0])
		res.Explanation = strings.Join(leaks[:min(len(leaks), 20)], "\n")
	case positive == 0:
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: no positive control among %d ops: no tenant read its own data, so a surface that returns nothing would pass", judged)
	default:
		res.Summary = fmt.Sprintf("no cross-tenant data in %d ops of %d tenants (%d positive, %d negative controls)", judged, len(names), positive, negative)
	}
	if negative == 0 {
		res.BlindSpots = append(res.BlindSpots, "no negative control: no cross-tenant attempt was denied or came back empty")
	}
	return res
}

// sortedKeys returns the keys of a set in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fmtKey and fmtValue render a key or value in a violation line.
func fmtKey(k any) string   { return fmt.Sprintf("%v", k) }
func fmtValue(v any) string { return fmt.Sprintf("%v", v) }

// Controls finds the boundary checker's result in r, or among its children
// (check.compose), and returns how many positive and negative controls fired
// ("positive_controls", "negative_controls" in its Details). ok is false when
// r holds no boundary result. The verdict's positive-only audit reads it.
func Controls(r Result) (positive, negative int, ok bool) {
	if r.Checker == "boundary" {
		p, pok := count(r.Details["positive_controls"])
		n, nok := count(r.Details["negative_controls"])
		if pok && nok {
			return p, n, true
		}
	}
	for _, c := range r.Children {
		if p, n, ok := Controls(c); ok {
			return p, n, true
		}
	}
	return 0, 0, false
}

// count reads a Details count: an int in memory, a float64 once the result
// went through JSON.
func count(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case float64:
		return int(x), true
	}
	return 0, false
}
