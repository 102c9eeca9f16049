package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/report"
)

// ReplayOptions say what to replay and where; nodes and load roots work
// as in Options.
type ReplayOptions struct {
	// Session is the session directory of the original run.
	Session string
	// Scenarios, when set, replays only these (artifact directory names
	// or scenario names); else the failed ones, else all.
	Scenarios []string
	// AsFastAsPossible ignores the recorded times, keeping each thread's
	// order.
	AsFastAsPossible bool
	// Out is the session root of the new session; "" puts it beside the
	// original (<root>/<slug>/<UTC time>-replay).
	Out string
	// Libs are load roots, NAME=DIR. None are needed: the session keeps a
	// copy of the files each root gave the run, and replay loads that; a
	// root given here is used instead of the copy, with a warning when its
	// files changed since the run (see recordedLibs).
	Libs []string
	// CheckTimeout bounds each checker's search; 0 is two minutes.
	CheckTimeout time.Duration
	// Nodes to replay on; a local original gets fresh local nodes when
	// this names none.
	Nodes Nodes
	// Progress gets diagnostics; nil discards them.
	Progress io.Writer
}

func (o ReplayOptions) withDefaults() ReplayOptions {
	if o.CheckTimeout == 0 {
		o.CheckTimeout = 2 * time.Minute
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

// ReplayResult is a finished replay: its session, each scenario's outcome
// (replay.json's scenarios) and the exit code the CLI gives it.
type ReplayResult struct {
	SessionDir string
	Scenarios  []ReplayOutcome
	// ExitCode is 0 when no replay found an anomaly, 1 when one did, 2
	// when a check could not decide, 3 when a replay did not run.
	ExitCode int
}

// recorded is one scenario run of a session that can be replayed.
type recorded struct {
	id     string // artifact directory name
	dir    string
	header interp.ScheduleHeader
	events []interp.Event
	orig   check.Result // what its checker said
}

// ReplayOutcome is one replay's line in replay.json and the summary.
type ReplayOutcome struct {
	Scenario   string   `json:"scenario"`
	Original   string   `json:"original"` // the original run's artifact directory
	Replay     string   `json:"replay"`   // this replay's artifact directory
	Reproduced string   `json:"reproduced"`
	Was        []string `json:"original_anomalies"`
	Now        []string `json:"replay_anomalies"`
	Result     string   `json:"result"` // the replay's check: valid, invalid, unknown, error
	Summary    string   `json:"summary"`
	// OriginalVerdict and ReplayVerdict are each run's check as printed:
	// verdict, summary and anomalies (runVerdict).
	OriginalVerdict string `json:"original_verdict"`
	ReplayVerdict   string `json:"replay_verdict"`
}

// Replay re-executes the recorded schedules of a session (the same
// operations on the same client threads at the same times, the same faults
// on the same nodes, the same seed) into a new session linked to the
// original, and says for each whether the original anomaly reproduced.
func Replay(ctx context.Context, o ReplayOptions) (*ReplayResult, error) {
	f := o.withDefaults()
	session, stderr := f.Session, f.Progress
	targets, err := replayTargets(session, f.Scenarios)
	if err != nil {
		return nil, rejected(err)
	}
	libs, err := interp.ParseLibs(f.Libs)
	if err != nil {
		return nil, usage("replay: %w", err)
	}
	sess, err := derivedSession(f.Out, session, "replay")
	if err != nil {
		return nil, err
	}
	header := report.Header{Plan: session, Tier: targets[0].header.Tier, Seed: targets[0].header.Seed, SUT: "as recorded in " + session}
	var outs []ReplayOutcome
	for _, t := range targets {
		if ctx.Err() != nil {
			break
		}
		_ = sess.Event(t.id, "replay of", filepath.Join(session, "artifacts", t.id), header)
		o := replayOne(ctx, t, f, libs, sess, stderr)
		_ = sess.Event(t.id, "reproduced: "+o.Reproduced, o.Summary, header)
		outs = append(outs, o)
	}
	if err := sess.WriteJSON("replay.json", map[string]any{"replay_of": session, "session_dir": sess.Dir, "scenarios": outs}); err != nil {
		return nil, err
	}
	rows := make([]report.ScenarioRow, len(outs))
	results := make([]string, len(outs))
	for i, o := range outs {
		results[i] = o.Result
		rows[i] = report.ScenarioRow{Scenario: o.Scenario, TierMet: "replay", Verdict: "reproduced: " + o.Reproduced, Notes: o.Summary}
	}
	code := ExitCode(results)
	if err := writeReplayReport(sess, session, f, outs, code); err != nil {
		return nil, err
	}
	if err := sess.Finish(header, rows); err != nil {
		return nil, err
	}
	return &ReplayResult{SessionDir: sess.Dir, Scenarios: outs, ExitCode: code}, nil
}

// replayOne replays one recorded run into sess and compares anomalies.
func replayOne(ctx context.Context, t recorded, f ReplayOptions, libs map[string]string, sess *report.Session, stderr io.Writer) ReplayOutcome {
	o := ReplayOutcome{Scenario: t.header.Scenario, Original: t.dir, Replay: sess.ArtifactDir(t.id), Was: check.Signature(t.orig), Result: "error",
		OriginalVerdict: runVerdict(t.orig)}
	fail := func(err error) ReplayOutcome {
		o.Reproduced, o.Summary = "no (the replay did not run)", err.Error()
		o.ReplayVerdict = "did not run: " + err.Error()
		return o
	}
	res, err := runRecorded(ctx, t, t.events, o.Replay, f, libs, stderr)
	if err != nil {
		return fail(err)
	}
	o.Result, o.Summary, o.Now = string(res.Check.Valid), res.Check.Summary, check.Signature(res.Check)
	o.ReplayVerdict = runVerdict(res.Check)
	o.Reproduced = compareAnomalies(o.Was, o.Now).reproduced()
	return o
}

// runRecorded runs events, recorded by t, into dir: the recorded script
// and scenario, the recorded seed and tier, on fresh local nodes when the
// original was local, else on the nodes f names.
func runRecorded(ctx context.Context, t recorded, events []interp.Event, dir string, f ReplayOptions,
	libs map[string]string, stderr io.Writer) (*interp.Result, error) {
	if _, err := os.Stat(t.header.Script); err != nil {
		// Before any node is brought up for it.
		return nil, fmt.Errorf("the recorded script %q is gone: %w", t.header.Script, err)
	}
	nodes := f.Nodes
	if nodes.List == "" && nodes.File == "" && t.header.Local {
		nodes.Local, nodes.List = true, strings.Join(t.header.Nodes, ",")
	}
	pool, release, err := nodes.Open(t.header.Seed, f.Progress)
	if err != nil {
		return nil, err
	}
	defer release()
	noteLocalSession(pool, dir) // a killed --local run's node logs go here
	sc, err := loadRecorded(ctx, t.header, libs, pool, stderr)
	if err != nil {
		return nil, err
	}
	return interp.Run(ctx, sc, interp.RunOptions{Tier: t.header.Tier, Seed: t.header.Seed,
		Dir: dir, CheckTimeout: f.CheckTimeout, Print: stderr, Pool: pool, Script: t.header.Script,
		Replay: &interp.Replay{Events: events, AsFastAsPossible: f.AsFastAsPossible}})
}

// derivedSession makes the session of a replay or reduction of original:
// beside it (<root>/<slug>/<UTC time>-<kind>), or under --out when given.
func derivedSession(out, original, kind string) (*report.Session, error) {
	if out != "" {
		return report.NewSession(out, kind+"-"+filepath.Base(filepath.Dir(filepath.Clean(original))), time.Now())
	}
	return report.NewSessionBeside(original, kind, time.Now())
}

// writeReplayReport writes findings/report.md of a replay session: what was
// replayed, from where, and whether the original anomaly came back.
func writeReplayReport(sess *report.Session, original string, f ReplayOptions, outs []ReplayOutcome, code int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Replay of %s\n\n- Session: `%s`\n- Result: **%s** (exit %d)\n", original, sess.Dir, Overall(code), code)
	if f.AsFastAsPossible {
		b.WriteString("- Timing: as fast as possible (recorded order per thread, recorded times ignored)\n")
	} else {
		b.WriteString("- Timing: the recorded times\n")
	}
	if len(outs) == 0 {
		b.WriteString("\nNothing was replayed (interrupted before the first scenario).\n")
	}
	for _, o := range outs {
		fmt.Fprintf(&b, "\n## %s: reproduced: %s\n\n", o.Scenario, o.Reproduced)
		fmt.Fprintf(&b, "- Original: `%s`: %s\n", o.Original, orNoneVerdict(o.OriginalVerdict, o.Was))
		if o.Result == "error" {
			fmt.Fprintf(&b, "- Replay: did not run: %s\n", o.Summary)
			continue
		}
		fmt.Fprintf(&b, "- Replay: `%s`: %s\n", o.Replay, orNoneVerdict(o.ReplayVerdict, o.Now))
	}
	fmt.Fprintf(&b, "\nReplay again: `%s`\n", ReplayCommand(original, f.Nodes))
	if err := os.WriteFile(filepath.Join(sess.Dir, "findings", "report.md"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write replay report: %w", err)
	}
	return nil
}

// loadRecorded loads the script a schedule header names, with the load
// roots libs and the recorded seed, and returns the recorded scenario:
// what replay runs again, reduce shrinks with and heal tears down.
func loadRecorded(ctx context.Context, h interp.ScheduleHeader, libs map[string]string, pool *control.Pool, stderr io.Writer) (*interp.Scenario, error) {
	if h.Script == "" {
		return nil, errors.New("the schedule names no script")
	}
	if _, err := os.Stat(h.Script); err != nil {
		return nil, fmt.Errorf("the recorded script is gone: %w", err)
	}
	given := libs
	libs, err := recordedLibs(h, given, stderr)
	if err != nil {
		return nil, err
	}
	loaded, err := interp.Load(ctx, h.Script, interp.LoadOptions{Libs: libs, Seed: h.Seed, Print: stderr, Pool: pool, Params: h.Params})
	if err != nil && len(h.Libs) == 0 && len(given) == 0 {
		// A schedule written before load roots were recorded.
		return nil, fmt.Errorf("%w (if the original run had --lib NAME=DIR, pass it again)", err)
	}
	if err != nil && len(h.Libs) > 0 {
		return nil, fmt.Errorf("%w (the kept copy of a library holds only the files the run loaded; if the script now loads others, pass --lib NAME=DIR)", err)
	}
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(loaded.Scenarios, func(s *interp.Scenario) bool { return s.Name == h.Scenario })
	if i < 0 {
		return nil, fmt.Errorf("%s declares no scenario %q any more", h.Script, h.Scenario)
	}
	sc := loaded.Scenarios[i]
	if h.Overrides != nil {
		sc = sc.WithOverrides(*h.Overrides)
	}
	return sc, nil
}

// recordedLibs returns the load roots that reload the script of h: each
// root the run loaded from is the run's kept copy of the files it loaded
// (so a replay needs no --lib, and works after the library's directory is
// gone), unless the root is given again in given: then the directory given
// is used, as asked (to replay against a fixed library, say), with a warning
// on stderr when its files differ from those the run loaded. Roots given
// that the run did not use pass through.
func recordedLibs(h interp.ScheduleHeader, given map[string]string, stderr io.Writer) (map[string]string, error) {
	libs := maps.Clone(given)
	if libs == nil {
		libs = map[string]string{}
	}
	for _, u := range h.Libs {
		if dir, ok := given[u.Name]; ok {
			now, err := u.DigestNow(dir)
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "faultline: warning: library @%s changed since the recorded run: %v; replaying with %s as given (the run's copy is in %s)\n", u.Name, err, dir, u.Kept)
			case now != u.SHA256:
				fmt.Fprintf(stderr, "faultline: warning: library @%s changed since the recorded run: the %d files it loaded from %s now have sha256 %s, the run's had %s; replaying with %s as given (the run's copy is in %s)\n",
					u.Name, len(u.Files), dir, now, u.SHA256, dir, u.Kept)
			}
			continue
		}
		if st, err := os.Stat(u.Kept); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("the run's copy of library @%s (%s) is missing; pass --lib %s=DIR", u.Name, u.Kept, u.Name)
		}
		libs[u.Name] = u.Kept
	}
	return libs, nil
}

// orNoneVerdict is a run's verdict as recorded, or, for an outcome
// written before verdicts were recorded, its anomalies.
func orNoneVerdict(verdict string, anomalies []string) string {
	if verdict != "" {
		return verdict
	}
	return OrNone(anomalies)
}

// OrNone lists anomaly signatures, or says there was no anomaly.
func OrNone(s []string) string {
	if len(s) == 0 {
		return "no anomaly"
	}
	return strings.Join(s, ", ")
}

// replayTargets finds the recorded runs of session to replay: the named
// scenarios, else those whose check failed, else all. Re-runs and replays
// inside the session are not originals.
func replayTargets(session string, ids []string) ([]recorded, error) {
	entries, err := os.ReadDir(filepath.Join(session, "artifacts"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a faultline session (no artifacts/): %w", session, err)
	}
	var all, failed []recorded
	for _, e := range entries {
		dir := filepath.Join(session, "artifacts", e.Name())
		path := filepath.Join(dir, interp.ScheduleFile)
		if !e.IsDir() || strings.Contains(e.Name(), "-rerun") {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			continue
		}
		h, events, err := interp.ReadSchedule(path)
		if err != nil {
			return nil, err
		}
		r := recorded{id: e.Name(), dir: dir, header: h, events: events}
		if data, err := os.ReadFile(filepath.Join(dir, "checker.json")); err == nil {
			_ = json.Unmarshal(data, &r.orig)
		}
		if len(ids) > 0 && !slices.Contains(ids, e.Name()) && !slices.Contains(ids, h.Scenario) {
			continue
		}
		all = append(all, r)
		if r.orig.Valid == check.Invalid {
			failed = append(failed, r)
		}
	}
	switch {
	case len(all) == 0 && len(ids) > 0:
		return nil, fmt.Errorf("%s: no recorded schedule for %s", session, strings.Join(ids, ", "))
	case len(all) == 0:
		return nil, errors.New(session + ": no recorded schedule (artifacts/*/schedule.jsonl) to replay")
	case len(ids) == 0 && len(failed) > 0:
		return failed, nil
	}
	return all, nil
}
