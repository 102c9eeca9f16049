package session

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/check/mutate"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/reduce"
	"github.com/faultline/faultline/report"
)

// ReduceOptions say what to reduce: the session and scenario as for a
// replay, and how many replays the schedule reduction may spend.
type ReduceOptions struct {
	ReplayOptions
	// MaxRuns bounds the replays of the schedule reduction, repeats
	// included (the CLI's default is 8); 0 bounds nothing, and one delta
	// debugging pass runs until the schedule is 1-minimal.
	MaxRuns int
	// Runs is how many times each candidate is replayed (0 is once); it
	// counts as failing if any replay fails.
	Runs int
}

// Reduction is what reduce.json records.
type Reduction struct {
	ReduceOf       string           `json:"reduce_of"`
	Scenario       string           `json:"scenario"`
	ShrunkHistory  string           `json:"shrunk_history,omitempty"`
	HistoryShrink  string           `json:"history_shrink"`
	EventsBefore   int              `json:"events_before"`
	EventsAfter    int              `json:"events_after"`
	Reproduced     int              `json:"reproduced"`
	Of             int              `json:"of"`
	Replays        int              `json:"replays"`
	OneMinimal     bool             `json:"one_minimal"`
	Tried          []reduce.Attempt `json:"tried"`
	Schedule       string           `json:"schedule"`
	ReplayCommand  string           `json:"replay_command"`
	FirstCandidate string           `json:"first_candidate"`
}

// Reduce shrinks a failed scenario of a session in two steps: offline,
// its history to the smallest sub-history the scenario's checker still
// rejects (shrunk-history.jsonl); then its recorded schedule by delta
// debugging, replaying each candidate on fresh nodes, to a schedule that
// still shows the original anomaly class. The minimal schedule lands in
// the new session's artifacts/<scenario>/schedule.jsonl, for Replay.
// Several failed scenarios and none named is a Usage Error; a session
// without one to reduce is Rejected; no replay deciding is Undecided.
func Reduce(ctx context.Context, o ReduceOptions) (*Reduction, error) {
	f := o.ReplayOptions.withDefaults()
	maxRuns, runs := o.MaxRuns, o.Runs
	session, stderr := f.Session, f.Progress
	targets, err := replayTargets(session, f.Scenarios)
	if err != nil {
		return nil, rejected(err)
	}
	if len(targets) != 1 {
		return nil, usage("reduce: %d scenarios to choose from: name one with --scenario", len(targets))
	}
	t := targets[0]
	if t.orig.Valid != check.Invalid {
		return nil, rejected(fmt.Errorf("reduce: %s did not fail (%s): nothing to reduce", t.id, t.orig.Valid))
	}
	libs, err := interp.ParseLibs(f.Libs)
	if err != nil {
		return nil, usage("reduce: %w", err)
	}
	sess, err := derivedSession(f.Out, session, "reduce")
	if err != nil {
		return nil, err
	}
	rec := Reduction{ReduceOf: filepath.Join(session, "artifacts", t.id), Scenario: t.header.Scenario, EventsBefore: len(t.events)}

	// Offline: the smallest sub-history the checker still rejects.
	shrunk, err := shrinkHistory(ctx, t, libs, anomalyClasses(check.Signature(t.orig)), stderr)
	if err != nil {
		rec.HistoryShrink = "not shrunk: " + err.Error()
	} else {
		rec.HistoryShrink = shrunk.Description
		rec.ShrunkHistory = filepath.Join(sess.Dir, "shrunk-history.jsonl")
		if err := writeHistory(rec.ShrunkHistory, shrunk.Ops); err != nil {
			return nil, err
		}
	}

	classes := anomalyClasses(check.Signature(t.orig))
	tries := 0
	type tally struct{ failed, runs int }
	seen := map[string]*tally{} // candidate -> its replays, for "reproduced r of m"
	test := func(ctx context.Context, events []interp.Event) (bool, error) {
		events = shiftToStart(events)
		k := candidateKey(events)
		if seen[k] == nil {
			seen[k] = &tally{}
		}
		seen[k].runs++
		tries++
		dir := filepath.Join(sess.Dir, "tries", strconv.Itoa(tries))
		res, err := runRecorded(ctx, t, events, dir, f, libs, stderr)
		if err != nil {
			return false, err
		}
		fails := sameClass(check.Signature(res.Check), classes)
		if fails {
			seen[k].failed++
		}
		verdict := "fails: " + strings.Join(check.Signature(res.Check), ", ")
		if !fails {
			verdict = "does not fail (" + res.Check.Summary + ")"
		}
		fmt.Fprintf(stderr, "faultline: reduce: try %d: %d events: %s\n", tries, len(events), verdict)
		return fails, nil
	}

	// The schedule cut to the shrunk history's keys and window is the first
	// candidate: most of a schedule is usually load on other keys.
	base := t.events
	if err == nil {
		if cut := cutSchedule(t.events, shrunk.Ops); len(cut) < len(base) {
			rec.FirstCandidate = fmt.Sprintf("%d events on the shrunk history's keys up to its last op", len(cut))
			if fails, err := test(ctx, cut); err != nil {
				return nil, err
			} else if fails {
				base = cut
				rec.FirstCandidate += ": still fails"
			} else {
				rec.FirstCandidate += ": does not fail; reducing the whole schedule"
			}
		}
	}
	opts := reduce.Options[interp.Unit]{
		Test: func(ctx context.Context, c []interp.Unit) (bool, error) { return test(ctx, interp.Flatten(c)) },
		Keep: func(c []interp.Unit) bool {
			// A schedule without client ops cannot show an anomaly.
			return slices.ContainsFunc(c, func(u interp.Unit) bool { return u.Kind == interp.UnitOps })
		},
		MaxRuns: maxRuns, Runs: runs,
	}
	res, err := reduce.Minimize(ctx, interp.ReductionUnits(base), opts)
	// Each 1-minimal pass is followed by another while replays remain: over
	// the kept client threads (fewer clients), then over finer spans of ops.
	pass := func(units []interp.Unit) bool {
		if len(units) <= len(res.Minimal) && len(units) < 2 {
			return false
		}
		opts.MaxRuns = maxRuns - res.Runs
		next, nerr := reduce.Minimize(ctx, units, opts)
		next.Runs += res.Runs
		next.Tried = append(res.Tried, next.Tried...)
		if len(next.Minimal) == 0 {
			res.Runs, res.Tried = next.Runs, next.Tried
			return false
		}
		res, err = next, nerr
		return true
	}
	for round := 0; err == nil && res.OneMinimal && res.Runs < maxRuns; round++ {
		events := interp.Flatten(res.Minimal)
		units := interp.ReductionUnits(events)
		if round == 0 {
			units = threadUnits(events)
		}
		if !pass(units) && round > 0 {
			break
		}
	}
	if err != nil && len(res.Minimal) == 0 {
		return nil, &Error{Kind: Undecided, Err: fmt.Errorf("reduce: no replay decided anything: %w", err)}
	}
	minimal := interp.Flatten(res.Minimal)
	rec.EventsAfter, rec.Replays, rec.OneMinimal, rec.Tried = len(minimal), res.Runs, res.OneMinimal, res.Tried
	if t := seen[candidateKey(shiftToStart(minimal))]; t != nil {
		rec.Reproduced, rec.Of = t.failed, t.runs
	}
	rec.Schedule = filepath.Join(sess.ArtifactDir(t.id), interp.ScheduleFile)
	if err := os.MkdirAll(filepath.Dir(rec.Schedule), 0o755); err != nil {
		return nil, err
	}
	h := t.header
	h.Started = time.Now().UTC()
	if err := interp.WriteSchedule(rec.Schedule, h, shiftToStart(minimal)); err != nil {
		return nil, err
	}
	if err := sess.WriteJSON(filepath.Join("artifacts", t.id, "checker.json"), t.orig); err != nil {
		return nil, err
	}
	rec.ReplayCommand = ReplayCommand(sess.Dir, f.Nodes)
	if err := sess.WriteJSON("reduce.json", rec); err != nil {
		return nil, err
	}
	if err := writeReduceReport(sess, rec); err != nil {
		return nil, err
	}
	if err := report.WriteIndex(sess.Dir); err != nil {
		return nil, err
	}
	return &rec, nil
}

// writeReduceReport writes findings/report.md of a reduce session: what was
// reduced and what came of it, in the words of reduce.json.
func writeReduceReport(sess *report.Session, rec Reduction) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Reduction of %s (%s)\n\n- Session: `%s`\n", rec.ReduceOf, rec.Scenario, sess.Dir)
	fmt.Fprintf(&b, "- History: %s\n", rec.HistoryShrink)
	if rec.ShrunkHistory != "" {
		fmt.Fprintf(&b, "- Shrunk history: `%s`\n", rec.ShrunkHistory)
	}
	if rec.FirstCandidate != "" {
		fmt.Fprintf(&b, "- First candidate: %s\n", rec.FirstCandidate)
	}
	fmt.Fprintf(&b, "- Schedule: %d events -> %d, reproduced %d of %d runs (%d replays, 1-minimal: %v)\n",
		rec.EventsBefore, rec.EventsAfter, rec.Reproduced, rec.Of, rec.Replays, rec.OneMinimal)
	fmt.Fprintf(&b, "- Minimal schedule: `%s`\n- Replay it: `%s`\n", rec.Schedule, rec.ReplayCommand)
	if err := os.WriteFile(filepath.Join(sess.Dir, "findings", "report.md"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write reduce report: %w", err)
	}
	return nil
}

// shrinkHistory shrinks the recorded history with the scenario's checker.
func shrinkHistory(ctx context.Context, t recorded, libs map[string]string, classes []string, stderr io.Writer) (mutate.Shrunk, error) {
	sc, err := loadRecorded(ctx, t.header, libs, nil, stderr)
	if err != nil {
		return mutate.Shrunk{}, err
	}
	file, err := history.ReadFile(filepath.Join(t.dir, "history.jsonl"), history.JSONL)
	if err != nil {
		return mutate.Shrunk{}, err
	}
	c := classChecker{Checker: sc.Checker, classes: classes}
	return mutate.Shrink(ctx, c, file.Ops, mutate.ShrinkOptions{})
}

// classChecker fails a history only when the wrapped checker finds one of
// the original anomaly classes in it, so shrinking and reduction keep the
// anomaly being chased and do not wander to another (say, stats calling a
// history invalid because no cas succeeded in it).
type classChecker struct {
	check.Checker
	classes []string
}

func (c classChecker) Check(ctx context.Context, h []history.Op, env check.Env) check.Result {
	r := c.Checker.Check(ctx, h, env)
	if r.Valid == check.Invalid && !sameClass(check.Signature(r), c.classes) {
		r.Valid, r.Summary = check.Valid, "not the anomaly being reduced: "+r.Summary
	}
	return r
}

// anomalyClasses drops the keys from signatures: "linearizable key=4" is
// of class "linearizable".
func anomalyClasses(sig []string) []string {
	out := make([]string, 0, len(sig))
	for _, s := range sig {
		class, _, _ := strings.Cut(s, " key=")
		out = append(out, class)
	}
	return out
}

// sameClass says whether a signature shows one of the classes.
func sameClass(sig, classes []string) bool {
	return slices.ContainsFunc(anomalyClasses(sig), func(c string) bool { return slices.Contains(classes, c) })
}

// shiftToStart moves a cut-down schedule earlier so it starts a second
// into the run rather than where its first kept event was, keeping the
// gaps between events: a replay lasts until its last event.
func shiftToStart(events []interp.Event) []interp.Event {
	if len(events) == 0 || events[0].T <= time.Second {
		return events
	}
	d := events[0].T - time.Second
	out := slices.Clone(events)
	for i := range out {
		out[i].T -= d
	}
	return out
}

// cutSchedule keeps the client events on the keys the shrunk history
// touches, and every nemesis event, up to the shrunk history's last op.
func cutSchedule(events []interp.Event, ops []history.Op) []interp.Event {
	var keys []any
	var end int64
	for _, op := range ops {
		if !op.IsNemesis() && !slices.ContainsFunc(keys, func(k any) bool { return history.Equal(k, op.Key) }) {
			keys = append(keys, op.Key)
		}
		end = max(end, op.Time)
	}
	var out []interp.Event
	for _, e := range events {
		if int64(e.T) > end {
			continue
		}
		if e.IsNemesis() || e.Phase != "" || slices.ContainsFunc(keys, func(k any) bool { return history.Equal(k, e.Key) }) {
			out = append(out, e)
		}
	}
	return out
}

// threadUnits groups a schedule by client thread, one unit per thread
// (dropping one is running with a client fewer), with the nemesis and phase
// events as one more unit.
func threadUnits(events []interp.Event) []interp.Unit {
	byThread := map[int]int{} // thread -> index in units
	var units []interp.Unit
	other := interp.Unit{Kind: interp.UnitNemesis}
	for _, e := range events {
		if e.IsNemesis() || e.Phase != "" {
			other.Events = append(other.Events, e)
			continue
		}
		i, ok := byThread[e.Thread]
		if !ok {
			i = len(units)
			byThread[e.Thread] = i
			units = append(units, interp.Unit{Kind: interp.UnitOps})
		}
		units[i].Events = append(units[i].Events, e)
	}
	if len(other.Events) > 0 {
		units = append(units, other)
	}
	return units
}

// candidateKey identifies a candidate schedule among those one reduction
// replays (they are all subsets of one schedule): its events' times and
// threads.
func candidateKey(events []interp.Event) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(strconv.FormatInt(int64(e.T), 36))
		b.WriteByte('@')
		b.WriteString(strconv.Itoa(e.Thread))
		b.WriteByte(',')
	}
	return b.String()
}

// writeHistory writes ops as a JSONL history file.
func writeHistory(path string, ops []history.Op) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := history.WriteJSONL(f, ops); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
