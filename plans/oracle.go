package plans

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// OracleClass is what ClassifyOracle found in an oracle's text.
type OracleClass struct {
	Checkers    []string `json:"checkers,omitempty"`    // checker families named, in vocabulary order
	Vague       []string `json:"vague,omitempty"`       // vague phrasings, as written
	Placeholder bool     `json:"placeholder,omitempty"` // empty, "TBD", "TODO", "{{...}}"
}

// Checkable reports whether a machine can decide the oracle: it names at least
// one checker or precise predicate. Vague clauses next to one are noise, not a
// halt.
func (c OracleClass) Checkable() bool { return !c.Placeholder && len(c.Checkers) > 0 }

// OnlyWeak reports whether every checker named is one the weak-oracle audit
// (spec §3.2) says is insufficient alone for a serious claim.
func (c OracleClass) OnlyWeak() bool {
	if len(c.Checkers) == 0 {
		return false
	}
	for _, name := range c.Checkers {
		if !weakCheckers[name] {
			return false
		}
	}
	return true
}

// oracleTerm is one row of the vocabulary: a checker family, the phrasings
// that name it, and keys, lower-case substrings one of which any match
// contains. The keys are a prefilter: most rows never run their pattern, which
// keeps classification cheap (the patterns are case-insensitive and bounded,
// so Go's regexp backtracks through them slowly).
type oracleTerm struct {
	checker string
	keys    []string
	re      *regexp.Regexp
}

// term builds a row; keys are "|"-separated.
func term(checker, keys, pattern string) oracleTerm {
	return oracleTerm{checker, strings.Split(keys, "|"), regexp.MustCompile(`(?i)` + pattern)}
}

// matches runs the pattern on t when lower (t in lower case) has a key.
func (o oracleTerm) matches(t, lower string) bool {
	return hasAnyKey(lower, o.keys) && o.re.MatchString(t)
}

func hasAnyKey(lower string, keys []string) bool {
	for _, k := range keys {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// unitRe is a time, rate or ratio unit after a number; the trailing class stands
// in for \b, which never matches after "%" or "/s".
const unitRe = `\s*(?:ms|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hours?|%|k?ops/s|req/s|qps|rps|/s)(?:[^A-Za-z]|$)`

// vocabulary is the table of oracle phrasings a machine can check. Each row is a
// checker family (the name the compiler maps to a checker) and what selects it:
//
//	checker                 phrasings
//	linearizable            linearizable, linearizability, Porcupine, Knossos
//	strict-serializable     strict serializable / serializability
//	serializable            serializable, serializability
//	snapshot-isolation      snapshot isolation
//	repeatable-read         repeatable read
//	read-committed          read committed
//	elle                    Elle, list-append, rw-register, anomaly classes G0 G1a G1b G1c G-single G2-item G2
//	no-lost-ack             no-lost-ack, lost acks, every acknowledged write present/visible/survives
//	set                     set checker, set-full
//	counter                 counter checker, counter model
//	bank                    bank checker, total balance, balances conserved
//	monotonic-reads         monotonic read(s)
//	session-consistency     session consistency, read-your-writes, own prior writes
//	exactly-once            exactly-once, at most one committed effect, duplicate effects
//	prefix-order            prefix order, prefix of the producer order
//	replay-equivalence      replay equivalence
//	replica-reconciliation  replica reconciliation, replicas pairwise equal / identical / converged
//	mutual-exclusion        mutual exclusion, at most one holder / leader / owner
//	boundary                cross-tenant, tenant isolation, "tenant B's keys never appear in any response",
//	                        another tenant's data, leaked ... tenant, positive / negative controls
//	final-state-invariant   final-state invariant (weak alone: spec §3.2 item 1)
//	fairness                worst_group_p99, min_group_throughput, error_rate_by_group, repeat_spread, per-group p99
//	slo                     p99 / latency / throughput / error rate bounded by a number with a unit
//	bounded-recovery        recovers / elects / fails over / converges within a number with a unit
//	predicate               a comparison: ==, !=, <=, >=, ≤, ≥, ≠, or <, >, = against a number
//	zero-count              "0 / zero / no" + a concrete observable: "0 cross-tenant reads", "no duplicate charges"
//	                        (not "no errors": errors are what a SUT may swallow, spec §3.2 item 5)
var vocabulary = []oracleTerm{
	term("linearizable", "lineari|porcupine|knossos", `\blineari[sz]ab\w*|\bporcupine\b|\bknossos\b`),
	term("strict-serializable", "strict", `\bstrict(?:ly)?[- ]seriali[sz]ab\w*`),
	term("serializable", "seriali", `\bseriali[sz]ab\w*`),
	term("snapshot-isolation", "snapshot", `\bsnapshot[- ]isolation\b`),
	term("repeatable-read", "repeatable", `\brepeatable[- ]read\b`),
	term("read-committed", "committed", `\bread[- ]committed\b`),
	term("elle", "elle|append|register|g0|g1|g-single|g2", `\belle\b|\blist[- ]append\b|\brw[- ]register\b|\bG(?:0|1[abc]|-single|2(?:-item)?)\b`),
	term("no-lost-ack", "lost|acknowledged|acked", `\bno[- ]lost[- ]acks?\b|\blost[- ](?:acks?|writes?|acknowledg\w*)|\b(?:every|all|each)\s+(?:acknowledged|acked)\b[^.;]{0,60}\b(?:present|visible|readable|survives?|in the final)`),
	term("set", "set", `\bset[- ](?:full|checker)\b`),
	term("counter", "counter", `\bcounter[- ](?:checker|model)\b`),
	term("bank", "bank|balance", `\bbank(?:[- ]checker)?\b|\btotal[- ]balance\b|\bbalances?\s+(?:sum|conserved|add up)`),
	term("monotonic-reads", "monotonic", `\bmonotonic[- ]reads?\b`),
	term("session-consistency", "session|your|own prior", `\bsession[- ]consisten\w*|\bread[- ]your[- ](?:own[- ])?writes\b|\bown prior writes\b`),
	term("exactly-once", "exactly|at most one|duplicate", `\bexactly[- ]once\b|\bat most one committed effect\b|\bduplicate (?:committed )?effects?\b`),
	term("prefix-order", "prefix", `\bprefix[- ]order\b|\bprefix of (?:the )?producer\b`),
	term("replay-equivalence", "replay", `\breplay[- ]equivalen\w*`),
	term("replica-reconciliation", "replica", `\breplica[- ]reconciliation\b|\breplicas?\b[^.;]{0,30}\b(?:pairwise[- ])?(?:equal|identical|converged?)\b`),
	term("mutual-exclusion", "mutual|at most one", `\bmutual(?:ly)?[- ]exclusi\w*|\bat most one (?:holder|leader|owner|lock holder|lease holder)\b`),
	term("boundary", "tenant|control", `\bcross[-_ ]tenant\w*|\btenant[-_ ]isolation\b|\banother tenant\b|\b(?:other|each other's|another) tenants?'?s?\b[^.;]{0,30}?\b(?:keys?|data|rows?|records?|values?)\b|`+
		`\btenants?\b[^.;]{0,80}?\bnever\b[^.;]{0,40}?\b(?:appears?|shows?|shown|visible|seen|returned|leaks?|leaked|reads?)\b|\bleak\w*\b[^.;]{0,80}?\btenants?\b|\b(?:positive|negative)[- ]controls?\b`),
	term("final-state-invariant", "invariant", `\bfinal[- ]state\b[^.;]{0,30}\binvariant\b`),
	term("fairness", "group|repeat_spread", `\bworst_group_p\d+|\bmin_group_throughput\b|\berror_rate_by_group\b|\brepeat_spread\b|\bper[- ]group\s+p\d+`),
	term("slo", "p0|p1|p2|p3|p4|p5|p6|p7|p8|p9|percentile|latency|throughput|goodput|rate|availab", `\b(?:p\d{1,2}(?:\.\d+)?|percentile|latency|throughput|goodput|error[- ]rate|success[- ]rate|availability)\b[^.;\n]{0,50}?(?:≤|<=|<|≥|>=|>|=|\bunder\b|\bbelow\b|\bwithin\b|\bat most\b|\bat least\b|\babove\b)\s*~?\s*\d+(?:\.\d+)?`+unitRe+
		`|(?:≤|<=|<|\bunder\b|\bbelow\b|\bat most\b)\s*\d+(?:\.\d+)?\s*ms\s+(?:p\d{1,2}|latency)`),
	term("bounded-recovery", "recover|elect|fail|converge|heal|catch|resum|available|progress", `\b(?:recover\w*|re-?elect\w*|elect\w*|fails?[- ]?over|failover|converge\w*|heal\w*|catch(?:es)? up|resum\w*|available|progress\w*)\b[^.;\n]{0,50}?(?:\bwithin\b|\bunder\b|\bin less than\b|<|≤|<=)\s*\d+(?:\.\d+)?`+unitRe),
	term("zero-count", "0|zero|no", `\b(?:0|zero|no)\s+(?:[\w-]+\s+){0,2}?(?:reads?|writes?|rows?|keys?|acks?|violations?|duplicates?|leaks?|leaked|cycles?|charges?|messages?|records?|entries|ops|operations|values?)\b`),
	term("predicate", "=|<|>|≤|≥|≠", `[\w)\]]\s*(?:==|!=|<=|>=|≤|≥|≠)\s*[-\w(\[]|[\w)\]]\s*[<>=]\s*-?\d`),
}

// weakCheckers are the checker families the weak-oracle audit rejects as the
// only oracle of a serious scenario.
var weakCheckers = map[string]bool{"final-state-invariant": true}

// vaguePhrases is the table of phrasings no machine can check (the spec's "logs
// look fine" and the weak oracles 2, 3 and 5 of §3.2). An oracle made only of
// these halts the run. Rows reuse oracleTerm with no checker name.
//
//	"logs look fine", "logs are clean", "check the logs", "log inspection"
//	"looks ok / fine / good / right / correct / reasonable"
//	"no errors / exceptions / failures / issues / problems (observed / seen / in logs)"
//	"manually verify / check / inspect", "eyeball", "by inspection", "human review", "visually"
//	"works / behaves correctly / fine / as expected", "seems / appears to work", "as expected"
//	"cluster / system / service / nodes healthy / up / stable / green", "health checks pass"
//	"no crashes", "nothing breaks / crashes / fails", "sanity check"
var vaguePhrases = []oracleTerm{
	term("", "log", `\blogs?\s+(?:looks?|seems?|are|is)\s+(?:fine|ok|okay|good|clean|normal|healthy)\b|\bcheck(?:ing)?\s+(?:the\s+)?logs\b|\blog\s+inspection\b`),
	term("", "look", `\blooks?\s+(?:fine|ok|okay|good|right|correct|reasonable|sane|healthy)\b`),
	term("", "no", `\bno\s+(?:visible\s+|obvious\s+|unexpected\s+)?(?:errors?|exceptions?|failures?|issues?|problems?)\b(?:\s+(?:observed|seen|reported|logged))?(?:\s+in\s+(?:the\s+)?logs?)?`),
	term("", "manual|eyeball|inspection|human|visual", `\bmanual(?:ly)?\s+(?:verif\w*|check\w*|inspect\w*|review\w*)|\beyeball\w*|\bby\s+inspection\b|\bhuman\s+review\b|\bvisually\b`),
	term("", "work|behav|expected", `\b(?:works?|working|behaves?)\s+(?:correctly|fine|properly|well|as\s+expected)\b|\b(?:seems?|appears?)\s+to\s+work\b|\bas\s+expected\b`),
	term("", "healthy|up|stable|green|health", `\b(?:cluster|system|service|nodes?|everything)\s+(?:is\s+|are\s+|stays?\s+|remains?\s+|looks?\s+)?(?:healthy|up|stable|green)\b|\bhealth[- ]?checks?\s+pass\w*`),
	term("", "crash|nothing|sanity", `\bno\s+crash(?:es)?\b|\bnothing\s+(?:breaks|crashes|fails)\b|\bsanity\s+check\w*`),
}

// ClassifyOracle reads an oracle (or exit criteria, or §7.M checker) text and
// reports which checker families it names and which vague phrasings it uses.
func ClassifyOracle(text string) OracleClass {
	var c OracleClass
	t := strings.TrimSpace(plain(text))
	if isPlaceholder(t) {
		c.Placeholder = true
		return c
	}
	lower := strings.ToLower(t)
	for _, v := range vocabulary {
		if v.matches(t, lower) {
			c.Checkers = append(c.Checkers, v.checker)
		}
	}
	// A phrase inside another ("look fine" in "logs look fine") is the same
	// complaint: keep the outermost, in reading order.
	var spans [][]int
	for _, v := range vaguePhrases {
		if hasAnyKey(lower, v.keys) {
			spans = append(spans, v.re.FindAllStringIndex(t, -1)...)
		}
	}
	slices.SortFunc(spans, func(a, b []int) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(b[1], a[1]))
	})
	end := -1
	for _, s := range spans {
		if s[1] <= end {
			continue // inside the previous phrase
		}
		end = s[1]
		c.Vague = append(c.Vague, strings.TrimSpace(t[s[0]:s[1]]))
	}
	return c
}

// isPlaceholder reports whether t is a value an author left to fill in later.
// "none" counts: a field that must state a property cannot be "none".
func isPlaceholder(t string) bool {
	t = strings.ToLower(strings.TrimSpace(t))
	if strings.HasPrefix(t, "{{") {
		return true
	}
	first, _, _ := strings.Cut(t, " ")
	switch strings.Trim(first, ".:;,—–-()!") {
	case "tbd", "tba", "todo", "fixme":
		return true
	}
	switch strings.Trim(t, " .:;,()!") {
	case "", "?", "??", "???", "-", "--", "—", "–", "n/a", "na", "none", "…":
		return true
	}
	return false
}
