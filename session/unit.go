package session

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/logaudit"
	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/report"
	"github.com/faultline/faultline/verdict"
)

// unitRun is one unit to run and decide: a compiled plan scenario or arm, or
// a scenario of a hand-written script. Both go through runUnit, so a script
// gets the same decision tree, gates and audits as a plan unit.
type unitRun struct {
	spec unitSpec
	sc   *interp.Scenario
	file string // the script the scenario came from, recorded in its schedule
	// status, when set, gets the live one-line status of each run.
	status io.Writer
}

// artifactName is the artifact directory of unit id's run with seed, in a
// session whose first seed is first: the ID with an arm's "/" made safe,
// and "-seed<N>" for every seed run after the first.
func artifactName(id string, seed, first uint64) string {
	if seed == first {
		return plans.ScenarioName(id)
	}
	return fmt.Sprintf("%s-seed%d", plans.ScenarioName(id), seed)
}

// unitOutcome is what running a unit produced: its decision, the run the
// report shows (the first violating one, else the first), and whether
// anything ran.
type unitOutcome struct {
	decision verdict.Decision
	result   *interp.Result
	runs     []*interp.Result // one per seed run, in order
	executed bool
}

// dbLeftRunning reports whether a run of the unit left its db running.
func (o unitOutcome) dbLeftRunning() bool {
	for _, r := range o.runs {
		if r != nil && r.DBLeftRunning {
			return true
		}
	}
	return o.result != nil && o.result.DBLeftRunning
}

// seedsFor is how many separate seed runs the tier asks for: the tier's
// declared seeds, at least one. Each is a run of its own with its own seed,
// and all of them count (§1.6: a statistical claim wants seeds agreeing).
func seedsFor(spec unitSpec, tier string) int {
	return max(1, spec.Budgets[verdict.Tier(tier)].Seeds)
}

// runUnit runs u once per seed the tier declares (seed, seed+1, ...), stops
// at the first run that finds a violation, re-runs that one with its seed,
// runs the sensitivity audit on every green run, and decides the verdict
// from the evidence of all the runs together.
func runUnit(ctx context.Context, u unitRun, f Options, sess *report.Session, header report.Header,
	pool *control.Pool, stderr io.Writer) unitOutcome {
	id := u.spec.ID
	u.sc = u.sc.WithOverrides(f.overrides())
	nodes := len(u.sc.Nodes)
	if pool != nil {
		nodes = len(pool.Nodes())
	}
	var out unitOutcome
	var evs []verdict.Evidence
	n := seedsFor(u.spec, f.Tier)
	for i := 0; i < n; i++ {
		if i > 0 && ctx.Err() != nil {
			break
		}
		sf := f
		sf.Seed = f.Seed + uint64(i)
		name := artifactName(id, sf.Seed, f.Seed)
		dir := sess.ArtifactDir(name)
		_ = sess.Event(id, "start", fmt.Sprintf("tier %s, seed %d (%d of %d)", f.Tier, sf.Seed, i+1, n), header)
		if st := interp.StatusOf(u.status); st != nil {
			label := id
			if n > 1 {
				label = fmt.Sprintf("%s seed %d/%d", id, i+1, n)
			}
			st.Unit(label)
		}
		res, err := interp.Run(ctx, u.sc, interp.RunOptions{Tier: f.Tier, Seed: sf.Seed, Dir: dir,
			Realtime: f.Realtime, CheckTimeout: f.CheckTimeout, Status: u.status, Print: stderr, Pool: pool, Script: u.file, Suite: f.Suite,
			LeaveDBRunning: f.LeaveDBRunning})
		if err != nil {
			_ = sess.Event(id, "error", err.Error(), header)
			if len(evs) == 0 {
				out.decision = notRun(id, "the run failed: "+err.Error())
				return out
			}
			// Later seeds that could not run leave the tier's seeds short:
			// the evidence below counts only those that ran.
			break
		}
		out.executed = true
		out.runs = append(out.runs, res)
		if res.QuietNote != "" {
			_ = sess.Event(id, "recovery tail", fmt.Sprintf("seed %d: %s", sf.Seed, res.QuietNote), header)
		}
		if out.result == nil {
			out.result = res
		}
		ev := evidenceOf(u.spec, res, nodes)
		if err := writePictures(dir, fmt.Sprintf("%s, seed %d", id, sf.Seed), res, ev.Recovery); err != nil {
			fmt.Fprintf(stderr, "faultline: %s: %v\n", id, err)
		}
		ev.Logs, ev.Retries = logsAndRetries(u.sc, res)
		switch res.Check.Valid {
		case check.Valid:
			interp.StatusOf(u.status).Phase("sensitivity audit")
			ev.Sensitivity = sensitivity(ctx, u.sc.Checker, res, sf.Seed)
			_ = sess.Event(id, "sensitivity audit", fmt.Sprintf("seed %d: %d mutants checked, %d caught, %d escaped",
				sf.Seed, ev.Sensitivity.Checked, ev.Sensitivity.Caught, len(ev.Sensitivity.Escaped)), header)
		case check.Invalid:
			if ev.Oracle.Misfit == "" {
				ev.Reruns = rerun(ctx, u.sc, sf, sess, header, id, dir, u.file, pool, res.Check, stderr)
			}
			// The finding cites both runs: the original first.
			ev.Reruns.Runs = append([]string{fmt.Sprintf("artifacts/%s: the original run: %s (seed %d)",
				name, violation(res.Check).Summary, sf.Seed)}, ev.Reruns.Runs...)
			out.result = res
		}
		_ = sess.Event(id, "oracle: "+string(res.Check.Valid), fmt.Sprintf("seed %d: %s", sf.Seed, res.Check.Summary), header)
		evs = append(evs, ev)
		if res.Check.Valid == check.Invalid {
			break // a violation is the finding; further seeds add nothing to it
		}
	}
	out.decision = verdict.Decide(mergeSeeds(evs))
	_ = sess.Event(id, "verdict: "+string(out.decision.Verdict), firstReason(out.decision), header)
	return out
}

// logsAndRetries reads what the system logged and says how its client
// retries. The logs are the ones the scenario declares (its db recipe's, or
// scenario(logs = ...)), saved before teardown, whatever the client: an
// in-process client in front of a real system does not make the system's
// logs go away. An in-process system with none declared has no log files,
// only the errors it returns, which the history holds.
func logsAndRetries(sc *interp.Scenario, res *interp.Result) (verdict.LogScan, verdict.Retries) {
	retries := retriesOf(sc.Client)
	if sc.Client.Simulated() {
		retries = verdict.Retries{Known: true, Evidence: "the in-process client makes exactly one call per op; nothing retries behind the history"}
	}
	var logs verdict.LogScan
	var err error
	switch {
	case sc.Logs.Declared():
		logs, err = logaudit.Files(sc.Logs, res.LogFiles)
	case sc.Client.Simulated() && sc.DB == nil:
		logs, err = scanOpErrors(res, sc.Logs)
	}
	if err != nil {
		// Load checked the patterns; one that no longer compiles leaves
		// the audit unable to judge rather than clean.
		logs = verdict.LogScan{Scanned: true, Unread: []string{"the log patterns: " + err.Error()}}
	}
	return logs, retries
}

// mergeSeeds folds the evidence of a unit's seed runs into one: the runs'
// ops, durations and oracle consumption add up, every run's faults must
// land, the worst oracle outcome stands (a violation's run leads), and the
// sensitivity audits add up. One run is returned as it is.
func mergeSeeds(evs []verdict.Evidence) verdict.Evidence {
	if len(evs) == 1 {
		return evs[0]
	}
	lead := 0
	for i, e := range evs {
		if rank(e.Oracle.Outcome) > rank(evs[lead].Oracle.Outcome) {
			lead = i
		}
	}
	m := evs[lead]
	m.Run.Seeds, m.Run.Repetitions = len(evs), len(evs)
	m.Run.Ops, m.Run.OK, m.Run.Unknown, m.Run.Duration = 0, 0, 0, 0
	m.Oracle.Consumed, m.Oracle.Dropped = 0, 0
	m.Faults = nil
	m.Sensitivity = verdict.Sensitivity{}
	m.Logs = verdict.LogScan{Scanned: true}
	m.Recovery = evs[0].Recovery
	for i, e := range evs {
		m.Run.Ops += e.Run.Ops
		m.Run.OK += e.Run.OK
		m.Run.Unknown += e.Run.Unknown
		m.Run.Duration += e.Run.Duration
		m.Oracle.Consumed += e.Oracle.Consumed
		m.Oracle.Dropped += e.Oracle.Dropped
		for _, fl := range e.Faults {
			fl.Name = fmt.Sprintf("seed %d: %s", i+1, fl.Name)
			m.Faults = append(m.Faults, fl)
		}
		s := e.Sensitivity
		m.Sensitivity.Ran = m.Sensitivity.Ran || s.Ran
		m.Sensitivity.Checked += s.Checked
		m.Sensitivity.Caught += s.Caught
		m.Sensitivity.Escaped = append(m.Sensitivity.Escaped, s.Escaped...)
		m.Sensitivity.Unfit = appendNew(m.Sensitivity.Unfit, s.Unfit...)
		m.Sensitivity.Kinds = appendNew(m.Sensitivity.Kinds, s.Kinds...)
		if m.Sensitivity.Skipped == "" {
			m.Sensitivity.Skipped = s.Skipped
		}
		if !e.Recovery.Measured || worseRecovery(e.Recovery, m.Recovery) {
			m.Recovery = e.Recovery
		}
		m.Logs.Add(e.Logs)
		if !e.History.Complete.Known || !e.History.Complete.Holds {
			m.History.Complete = e.History.Complete
		}
	}
	return m
}

// worseRecovery reports whether a shows a worse recovery than b: fewer
// nodes answering, or a smaller share of pre-fault throughput.
func worseRecovery(a, b verdict.Recovery) bool {
	if !b.Measured {
		return false
	}
	if a.NodesUp*max(b.Nodes, 1) != b.NodesUp*max(a.Nodes, 1) {
		return a.NodesUp*max(b.Nodes, 1) < b.NodesUp*max(a.Nodes, 1)
	}
	return a.Baseline > 0 && b.Baseline > 0 && a.After/a.Baseline < b.After/b.Baseline
}

// rank orders oracle outcomes, worst highest.
func rank(o verdict.Outcome) int {
	switch o {
	case verdict.Invalid:
		return 3
	case verdict.Unknown:
		return 2
	case verdict.Valid:
		return 1
	}
	return 0
}

// appendNew appends the values of add that s lacks.
func appendNew(s []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(s, a) {
			s = append(s, a)
		}
	}
	return s
}
