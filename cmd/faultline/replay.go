package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/report"
)

// replayFlags are replay's own settings; nodes and libs work as in run.
type replayFlags struct {
	scenarios    []string
	fast         bool
	out          string
	libs         []string
	checkTimeout time.Duration
	nodes        nodeFlags
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay SESSION_DIR [--scenario ID] [--nodes ...|--local]",
		Short: "Run a recorded schedule again and say whether its anomaly reproduced",
		Long: `replay re-executes what a run recorded in artifacts/<scenario>/schedule.jsonl:
the same operations on the same client threads at the same times (or, with
--as-fast-as-possible, in the same order per thread), the same faults on the
same nodes, with the same seed. It writes a new session linked to the
original and says whether the original anomaly reproduced: the same anomaly
on the same keys, the same anomaly on other keys, a different anomaly, or none.

Without --scenario it replays the scenarios whose check failed (or every
scenario, if none failed). Local runs (--local, faultline demo) get fresh
local nodes; runs on real nodes need --nodes or --nodes-file again, which
may name another cluster.

The new session lands beside the original (<root>/<slug>/<UTC time>-replay)
unless --out names a root; its findings/report.md says what was replayed and
whether the anomaly reproduced. Load roots are not recorded: pass the
original run's --lib again (the printed replay commands include them).

Exit codes: 0 the replay found no anomaly, 1 it found one, 2 its check could
not decide, 3 the session cannot be replayed, 64 usage error.`,
		Example: `  faultline replay test-sessions/demo-store/20261130T081727Z
  faultline replay SESSION --scenario S1 --nodes-file /var/lib/faultline/cluster/nodes --ssh-key ...`,
		Args: exactlyOne("replay", "SESSION_DIR"),
		RunE: func(cmd *cobra.Command, args []string) error { return replaySession(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.scenarios, "scenario", nil, "replay only this scenario (repeatable)")
	fl.BoolVar(&f.fast, "as-fast-as-possible", false, "ignore recorded times; keep each thread's order")
	f.register(fl)
	return cmd
}

// register adds the flags replay and reduce share: where sessions go, load
// roots, the checker's bound, and the nodes to run on.
func (f *replayFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.out, "out", "test-sessions", "session root directory")
	fl.StringArrayVar(&f.libs, "lib", nil, "load root: NAME=DIR, as given to the original run (repeatable)")
	fl.DurationVar(&f.checkTimeout, "check-timeout", 2*time.Minute, "bound on each checker's search")
	f.nodes.register(fl)
	f.nodes.registerLocal(fl)
}

// recorded is one scenario run of a session that can be replayed.
type recorded struct {
	id     string // artifact directory name
	dir    string
	header interp.ScheduleHeader
	events []interp.Event
	orig   check.Result // what its checker said
}

// replayOutcome is one replay's line in replay.json and the summary.
type replayOutcome struct {
	Scenario   string   `json:"scenario"`
	Original   string   `json:"original"` // the original run's artifact directory
	Replay     string   `json:"replay"`   // this replay's artifact directory
	Reproduced string   `json:"reproduced"`
	Was        []string `json:"original_anomalies"`
	Now        []string `json:"replay_anomalies"`
	Result     string   `json:"result"` // the replay's check: valid, invalid, unknown, error
	Summary    string   `json:"summary"`
}

func replaySession(cmd *cobra.Command, f replayFlags, session string) error {
	stderr, stdout := cmd.ErrOrStderr(), cmd.OutOrStdout()
	targets, err := replayTargets(session, f.scenarios)
	if err != nil {
		return &exitError{code: exitRejected, err: err}
	}
	libs, err := interp.ParseLibs(f.libs)
	if err != nil {
		return usageErr("replay: %w", err)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sess, err := derivedSession(cmd, f.out, session, "replay")
	if err != nil {
		return err
	}
	header := report.Header{Plan: session, Tier: targets[0].header.Tier, Seed: targets[0].header.Seed, SUT: "as recorded in " + session}
	var outs []replayOutcome
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
		return err
	}
	rows := make([]report.ScenarioRow, len(outs))
	results := make([]string, len(outs))
	for i, o := range outs {
		results[i] = o.Result
		rows[i] = report.ScenarioRow{Scenario: o.Scenario, TierMet: "replay", Verdict: "reproduced: " + o.Reproduced, Notes: o.Summary}
		fmt.Fprintf(stdout, "%s: reproduced: %s\n  original %s: %s\n  replay   %s: %s\n", o.Scenario, o.Reproduced,
			o.Original, orNone(o.Was), o.Replay, orNone(o.Now))
	}
	code := worstExit(results)
	if err := writeReplayReport(sess, session, f, outs, code); err != nil {
		return err
	}
	if err := sess.Finish(header, rows); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "session: %s\nreport: %s\n", sess.Dir, filepath.Join(sess.Dir, "findings", "report.md"))
	if code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// replayOne replays one recorded run into sess and compares anomalies.
func replayOne(ctx context.Context, t recorded, f replayFlags, libs map[string]string, sess *report.Session, stderr io.Writer) replayOutcome {
	o := replayOutcome{Scenario: t.header.Scenario, Original: t.dir, Replay: sess.ArtifactDir(t.id), Was: check.Signature(t.orig), Result: "error"}
	fail := func(err error) replayOutcome {
		o.Reproduced, o.Summary = "no (the replay did not run)", err.Error()
		return o
	}
	res, err := runRecorded(ctx, t, t.events, o.Replay, f, libs, stderr)
	if err != nil {
		return fail(err)
	}
	o.Result, o.Summary, o.Now = string(res.Check.Valid), res.Check.Summary, check.Signature(res.Check)
	switch {
	case len(o.Now) == 0:
		o.Reproduced = "no"
	case len(o.Was) == 0:
		o.Reproduced = "a new anomaly (the original run found none)"
	case slices.ContainsFunc(o.Now, func(s string) bool { return slices.Contains(o.Was, s) }):
		o.Reproduced = "yes, the same anomaly on the same keys"
	case sameClass(o.Now, anomalyClasses(o.Was)):
		o.Reproduced = "yes, the same anomaly on other keys"
	default:
		o.Reproduced = "yes, a different anomaly"
	}
	return o
}

// runRecorded runs events, recorded by t, into dir: the recorded script
// and scenario, the recorded seed and tier, on fresh local nodes when the
// original was local, else on the nodes f names.
func runRecorded(ctx context.Context, t recorded, events []interp.Event, dir string, f replayFlags,
	libs map[string]string, stderr io.Writer) (*interp.Result, error) {
	if _, err := os.Stat(t.header.Script); err != nil {
		// Before any node is brought up for it.
		return nil, fmt.Errorf("the recorded script %q is gone: %w", t.header.Script, err)
	}
	nodes := f.nodes
	if nodes.nodes == "" && nodes.nodesFile == "" && t.header.Local {
		nodes.local, nodes.nodes = true, strings.Join(t.header.Nodes, ",")
	}
	pool, release, err := nodes.pool(t.header.Seed)
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
		Dir: dir, CheckTimeout: f.checkTimeout, Print: stderr, Pool: pool, Script: t.header.Script,
		Replay: &interp.Replay{Events: events, AsFastAsPossible: f.fast}})
}

// derivedSession makes the session of a replay or reduction of original:
// beside it (<root>/<slug>/<UTC time>-<kind>), or under --out when given.
func derivedSession(cmd *cobra.Command, out, original, kind string) (*report.Session, error) {
	if cmd.Flags().Changed("out") {
		return report.NewSession(out, kind+"-"+filepath.Base(filepath.Dir(filepath.Clean(original))), time.Now())
	}
	return report.NewSessionBeside(original, kind, time.Now())
}

// writeReplayReport writes findings/report.md of a replay session: what was
// replayed, from where, and whether the original anomaly came back.
func writeReplayReport(sess *report.Session, original string, f replayFlags, outs []replayOutcome, code int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Replay of %s\n\n- Session: `%s`\n- Result: **%s** (exit %d)\n", original, sess.Dir, overall(code), code)
	if f.fast {
		b.WriteString("- Timing: as fast as possible (recorded order per thread, recorded times ignored)\n")
	} else {
		b.WriteString("- Timing: the recorded times\n")
	}
	if len(outs) == 0 {
		b.WriteString("\nNothing was replayed (interrupted before the first scenario).\n")
	}
	for _, o := range outs {
		fmt.Fprintf(&b, "\n## %s: reproduced: %s\n\n", o.Scenario, o.Reproduced)
		fmt.Fprintf(&b, "- Original: `%s`: %s\n", o.Original, orNone(o.Was))
		if o.Result == "error" {
			fmt.Fprintf(&b, "- Replay: did not run: %s\n", o.Summary)
			continue
		}
		fmt.Fprintf(&b, "- Replay: `%s`: %s\n", o.Replay, orNone(o.Now))
		fmt.Fprintf(&b, "- Replay check: %s: %s\n", o.Result, o.Summary)
	}
	fmt.Fprintf(&b, "\nReplay again: `%s`\n", replayCommand(original, f.libs, f.nodes))
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
	loaded, err := interp.Load(ctx, h.Script, interp.LoadOptions{Libs: libs, Seed: h.Seed, Print: stderr, Pool: pool})
	if err != nil && len(libs) == 0 {
		// The schedule does not record load roots; the printed commands
		// carry them, a hand-typed one may not.
		return nil, fmt.Errorf("%w (if the original run had --lib NAME=DIR, pass it again)", err)
	}
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(loaded.Scenarios, func(s *interp.Scenario) bool { return s.Name == h.Scenario })
	if i < 0 {
		return nil, fmt.Errorf("%s declares no scenario %q any more", h.Script, h.Scenario)
	}
	return loaded.Scenarios[i], nil
}

func orNone(s []string) string {
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
