package verdict

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/faultline/faultline/internal/plural"
)

// redFlags are the ten green-but-broken checks of §3.1, in report order. Any
// open one turns a PASS into PARTIAL-surface.
var redFlags = []check{
	{id: "RF1", title: "Load generated", judge: (*auditor).load},
	{id: "RF2", title: "Oracle ran every cycle", judge: (*auditor).oracleRan},
	{id: "RF3", title: "Fault injected", judge: (*auditor).faultInjected},
	{id: "RF4", title: "No silent no-op", judge: (*auditor).noSilentNoop},
	{id: "RF5", title: "Clock skew can't mask timing", judge: (*auditor).monotonic},
	{id: "RF6", title: "Duration met the claimed tier", judge: (*auditor).tierClaimed},
	{id: "RF7", title: "No swallowed errors", judge: (*auditor).logs},
	{id: "RF8", title: "Recovery completed", judge: (*auditor).recovered},
	{id: "RF9", title: "Fair baseline", judge: (*auditor).baseline},
	{id: "RF10", title: "Replicated", judge: (*auditor).replicated},
}

// noFault is the evidence of fault items on a run with no fault planned.
const noFault = "n/a — no fault scheduled (PASS-smoke)"

// load: the plan's rate was sustained for the whole window. Without a
// per-window series an average can only prove a shortfall, not a sustain.
func (a *auditor) load() (Status, string) {
	r, l := a.e.Run, a.e.Load
	if r.Ops <= 0 {
		return Failed, "no client ops issued"
	}
	if r.OK <= 0 {
		return Failed, fmt.Sprintf("%d client ops issued, none completed ok: the system did no work the oracle could vouch for", r.Ops)
	}
	if known := r.Known(); float64(known) < MinKnownShare*float64(r.Ops) {
		return Failed, fmt.Sprintf("%s; %d ended info or never completed, so most of the load never happened as far as anyone can tell "+
			"(at least %.0f%% of ops need a known outcome)", knownText(r), r.Ops-known, MinKnownShare*100)
	}
	avg := rate(r.Known(), r.Duration.Seconds())
	never := ""
	if len(l.NeverOK) > 0 {
		never = "; never completed ok: " + strings.Join(l.NeverOK, ", ") + " (load evidence, not an anomaly)"
	}
	st, ev := a.sustained(avg)
	return st, ev + never
}

// sustained judges the load against the plan's rate.
func (a *auditor) sustained(avg float64) (Status, string) {
	r, l := a.e.Run, a.e.Load
	switch {
	case l.Target <= 0:
		return Pass, fmt.Sprintf("%s over %s (%.1f ops/s); the plan states no rate to sustain", knownText(r), r.Duration, avg)
	case l.Windows > 0 && l.Lowest >= l.Target:
		return Pass, fmt.Sprintf("lowest of %d windows %.1f ops/s ≥ target %.1f ops/s", l.Windows, l.Lowest, l.Target)
	case l.Windows > 0:
		return Failed, fmt.Sprintf("lowest of %d windows %.1f ops/s < target %.1f ops/s", l.Windows, l.Lowest, l.Target)
	case r.Duration <= 0:
		return CannotJudge, fmt.Sprintf("%s, but neither duration nor a per-window series was measured", knownText(r))
	case avg < l.Target:
		return Failed, fmt.Sprintf("average %.1f ops/s < target %.1f ops/s", avg, l.Target)
	}
	return CannotJudge, fmt.Sprintf("average %.1f ops/s ≥ target %.1f ops/s, but no per-window series shows it was sustained", avg, l.Target)
}

// knownText says how many of the ops issued had a known outcome.
func knownText(r Run) string {
	return fmt.Sprintf("%d of %d ops had a known outcome (ok or fail)", r.Known(), r.Ops)
}

// oracleRan: the oracle decided and accounts for every op issued.
func (a *auditor) oracleRan() (Status, string) {
	o, issued := &a.e.Oracle, a.e.Run.Ops
	if !o.ran() {
		return Failed, "the oracle did not run"
	}
	if o.Outcome == Unknown {
		return Failed, "the oracle ran but could not decide" + suffix(o.Summary)
	}
	acc := o.Consumed + o.Dropped
	switch {
	case o.Consumed <= 0:
		return Failed, "the oracle consumed no ops"
	case issued <= 0:
		return CannotJudge, fmt.Sprintf("the oracle consumed %d ops, but ops issued were not counted", o.Consumed)
	case acc == issued:
		return Pass, fmt.Sprintf("%s consumed %d of %d issued ops (%d rightly dropped), %s", orDefault(o.Name, "oracle"), o.Consumed, issued, o.Dropped, plural.Count(o.Keys, "key"))
	case acc < issued:
		return Failed, fmt.Sprintf("%d of %d issued ops unaccounted for (consumed %d, dropped %d): truncated history?", issued-acc, issued, o.Consumed, o.Dropped)
	}
	return Failed, fmt.Sprintf("the oracle accounts for %d ops but %d were issued: the counts disagree", acc, issued)
}

// faultInjected: every scheduled fault shows the declared landing evidence.
func (a *auditor) faultInjected() (Status, string) {
	if len(a.e.Faults) == 0 {
		return NA, noFault
	}
	st, parts := Pass, make([]string, 0, len(a.e.Faults))
	for i := range a.e.Faults {
		f := &a.e.Faults[i]
		if f.landed() {
			parts = append(parts, f.Name+": "+landingText(f))
			continue
		}
		st = Failed
		parts = append(parts, f.Name+": "+landingGap(f))
	}
	return st, strings.Join(parts, "; ")
}

// noSilentNoop: the effect was read back on the victim and was still in place
// when the hold ended, so it was neither on the wrong chain nor reverted.
func (a *auditor) noSilentNoop() (Status, string) {
	if len(a.e.Faults) == 0 {
		return NA, noFault
	}
	st, parts := Pass, make([]string, 0, len(a.e.Faults))
	for i := range a.e.Faults {
		f := &a.e.Faults[i]
		vs, vev := judgeFact(f.Victim, "effect read back on the victim")
		hs, hev := judgeFact(f.Held, "held until heal")
		if f.OneShot != "" {
			hs, hev = Pass, "held: n/a, a one-shot fault with no end ("+f.OneShot+")"
		}
		st = worst(st, worst(vs, hs))
		parts = append(parts, fmt.Sprintf("%s: %s; %s", f.Name, vev, hev))
	}
	return st, strings.Join(parts, "; ")
}

// monotonic: timing assertions use a monotonic clock.
func (a *auditor) monotonic() (Status, string) {
	return judgeFact(a.e.History.Monotonic, "history times monotonic")
}

// tierClaimed: the measured tier reaches the tier the PASS would claim.
func (a *auditor) tierClaimed() (Status, string) {
	ev := fmt.Sprintf("claims %s, met %s: %s", a.claimed, a.met, strings.Join(a.tierNotes, "; "))
	if a.met.AtLeast(a.claimed) {
		return Pass, ev
	}
	return Failed, ev
}

// logs: every declared log of the system was read and no alarm matched a
// line that was not declared expected. A log that was not read (missing,
// empty, unreadable) proves nothing, so it is never clean; a suite that says
// its system has no logs faultline can reach makes the item n/a with its
// reason.
func (a *auditor) logs() (Status, string) {
	l := &a.e.Logs
	excused := ""
	if l.Excused > 0 {
		excused = fmt.Sprintf("; %s excused as expected (first: %s)", plural.Count(l.Excused, "alarm line"), l.ExcusedSample)
	}
	switch {
	case l.None != "":
		return NA, "the suite declares no system logs faultline can reach: " + l.None
	case !l.Scanned:
		return CannotJudge, "the system's logs were not grepped: nothing says where they are"
	case l.Matches > 0:
		return Failed, fmt.Sprintf("%s in %s (%s lines read): %s%s%s",
			plural.CountAs(l.Matches, "alarm line", "alarm lines"), plural.Count(l.Files, "log file"), fmt.Sprint(l.Lines),
			byAlarm(l.ByAlarm), strings.Join(l.Samples, " | "), rest(l.Matches, len(l.Samples)))
	case len(l.Unread) > 0:
		return CannotJudge, fmt.Sprintf("%s not read, and a log not read is not clean: %s (%s read)",
			plural.Count(len(l.Unread), "declared log"), strings.Join(l.Unread, "; "), plural.Count(l.Files, "other file"))
	case l.Source == "history":
		return Pass, fmt.Sprintf("the in-process system keeps no log files; the %s it returned grepped for %s: no alarm%s",
			plural.Count(int(l.Lines), "op error"), l.Alarms, excused)
	case l.Files == 0 || l.Lines == 0:
		return CannotJudge, "no line of the system's logs was read (no declared log file was found)"
	}
	return Pass, fmt.Sprintf("%s (%d lines) read, grepped for %s: no alarm%s", plural.Count(l.Files, "log file"), l.Lines, l.Alarms, excused)
}

// LogsFix says how a suite declares where its system's logs are.
const LogsFix = "name the log files in the db recipe (struct(..., logs = [\"path/on/node.log\"])), or pass scenario(..., logs = system_logs(paths = [...])) " +
	"(local_paths = [...] for files on this machine); if faultline cannot reach them, say why: system_logs(none = \"why\")"

// byAlarm is "2 of `panic: `, 1 of `SEVERE`; ", most matches first.
func byAlarm(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d of `%s`", m[k], k)
	}
	return strings.Join(parts, ", ") + "; "
}

// rest states how many matches are not quoted.
func rest(matches, quoted int) string {
	if matches <= quoted {
		return ""
	}
	return fmt.Sprintf(" | and %d more not quoted (grep the run's logs/ for them)", matches-quoted)
}

// recovered: every fault's removal was verified and the system came back to
// nominal: every node answering, its answers as often ok and about as fast
// as before the first fault (see Recovery for why not throughput).
func (a *auditor) recovered() (Status, string) {
	if len(a.e.Faults) == 0 {
		return NA, noFault
	}
	st, parts := Pass, make([]string, 0, len(a.e.Faults)+1)
	for i := range a.e.Faults {
		f := &a.e.Faults[i]
		if f.OneShot != "" {
			parts = append(parts, f.Name+": heal: n/a, a one-shot fault with no end ("+f.OneShot+")")
			continue
		}
		s, ev := judgeFact(f.Healed, "heal verified")
		st = worst(st, s)
		parts = append(parts, f.Name+": "+ev)
	}
	s, ev := nominal(&a.e.Recovery)
	return worst(st, s), strings.Join(append(parts, ev), "; ")
}

// nominal judges the after-heal measurement against the pre-fault one. The
// first failed test is the reason given; the order puts the plainest
// symptom first.
func nominal(r *Recovery) (Status, string) {
	floor := r.Floor
	if floor <= 0 {
		floor = DefaultRecoveryFloor
	}
	limit := time.Duration(DefaultLatencyFactor)*r.LatencyBefore + DefaultLatencyGrace
	switch {
	case !r.Measured:
		return CannotJudge, "recovery after heal not measured"
	case r.Nodes <= 0 || r.Baseline <= 0 || r.AnsweredBefore <= 0 || r.LatencyBefore <= 0:
		return CannotJudge, "no node count, pre-fault throughput or pre-fault answers to compare with"
	case r.NodesUp < r.Nodes:
		return Failed, fmt.Sprintf("%d of %d nodes answering ok after heal", r.NodesUp, r.Nodes)
	case r.AnsweredAfter < DefaultAnsweredFloor*r.AnsweredBefore:
		return Failed, fmt.Sprintf("after heal %.0f%% of ops answered < %.0f%% of pre-fault %.0f%%: errors or timeouts left behind",
			r.AnsweredAfter*100, DefaultAnsweredFloor*100, r.AnsweredBefore*100)
	case r.LatencyAfter > limit:
		return Failed, fmt.Sprintf("after heal median ok latency %s > %d× pre-fault %s + %s: up but degraded",
			r.LatencyAfter.Round(10*time.Microsecond), DefaultLatencyFactor, r.LatencyBefore.Round(10*time.Microsecond), DefaultLatencyGrace)
	case r.After < floor*r.Baseline:
		return Failed, fmt.Sprintf("after heal %.1f ops/s < %.0f%% of pre-fault %.1f ops/s: serving next to nothing", r.After, floor*100, r.Baseline)
	}
	return Pass, fmt.Sprintf("all %d nodes answering; after heal %.0f%% of ops answered (pre-fault %.0f%%), median latency %s (pre-fault %s), %.1f ops/s (pre-fault %.1f ops/s)",
		r.Nodes, r.AnsweredAfter*100, r.AnsweredBefore*100, r.LatencyAfter.Round(10*time.Microsecond), r.LatencyBefore.Round(10*time.Microsecond), r.After, r.Baseline)
}

// baseline: a comparison against an earlier run used the same harness.
func (a *auditor) baseline() (Status, string) {
	b := &a.e.Baseline
	switch {
	case !b.Used:
		return NA, "the oracle compares against no baseline run"
	case b.Harness == "" || b.BaselineHarness == "":
		return CannotJudge, "harness version of the run or of its baseline not recorded"
	case b.Harness != b.BaselineHarness:
		return Failed, fmt.Sprintf("harness %s differs from the baseline's %s: re-baseline", b.Harness, b.BaselineHarness)
	}
	return Pass, "same harness as the baseline: " + b.Harness
}

// replicated: a hardening PASS rests on MinSeeds agreeing seeds.
func (a *auditor) replicated() (Status, string) {
	return a.seeds("one PASS is not a PASS")
}

// seeds judges the distinct seeds against MinSeeds at the hardening tier.
func (a *auditor) seeds(why string) (Status, string) {
	n := a.e.Run.Seeds
	if a.claimed != TierHardening {
		return NA, "smoke is a single-seed tier (§1.6); seeds are judged at hardening"
	}
	if n >= MinSeeds {
		return Pass, fmt.Sprintf("%d distinct seeds agreed", n)
	}
	return Failed, fmt.Sprintf("%s; a hardening claim needs ≥%d: %s", plural.Count(n, "distinct seed"), MinSeeds, why)
}

// landingText is the landing evidence of a landed fault.
func landingText(f *Fault) string {
	s := "injector: " + orDefault(f.Injector.Evidence, "ok") + ", victim: " + orDefault(f.Victim.Evidence, "seen")
	if f.Client.ok() {
		s += ", client: " + orDefault(f.Client.Evidence, "seen")
	}
	return s
}

// landingGap says which part of a fault's landing evidence is missing.
func landingGap(f *Fault) string {
	var gaps []string
	if !f.Injector.ok() {
		gaps = append(gaps, "injector did not report success"+suffix(f.Injector.Evidence))
	}
	if !f.Victim.ok() {
		gaps = append(gaps, "no victim-side signal"+suffix(orDefault(f.Victim.Evidence, "not checked")))
	}
	if f.ClientDeclared && !f.Client.ok() {
		gaps = append(gaps, "declared client-side signal absent"+suffix(orDefault(f.Client.Evidence, "not checked")))
	}
	if f.Declared.Known && !f.Declared.Holds {
		gaps = append(gaps, "declared landing evidence not seen"+suffix(f.Declared.Evidence))
	}
	return strings.Join(gaps, ", ")
}
