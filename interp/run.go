package interp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/seed"
	"github.com/faultline/faultline/logaudit"
	"github.com/faultline/faultline/nemesis"
	stargen "github.com/faultline/faultline/star/gen"
	"github.com/faultline/faultline/verdict"
)

// RunOptions configure one run of one scenario.
type RunOptions struct {
	Tier         string        // budget tier (default "smoke")
	Seed         uint64        // root seed of the run
	Dir          string        // artifact directory: history.jsonl and checker output go here
	Realtime     bool          // use wall-clock time even for in-process clients
	CheckTimeout time.Duration // bound on the checker's search (0 = 2 minutes)
	Status       io.Writer     // live one-line status (nil = none)
	Print        io.Writer     // Starlark print() (nil = stderr)
	Log          func(string)  // engine notes and gen.log messages (nil = dropped)
	Pool         *control.Pool // the nodes scripts may reach (nil = none)
	// Script and Suite are the files the scenario came from (the plan's
	// suite, if any); the recorded schedule names the script and the
	// digests of both, so a replay can load it and say what it re-ran.
	Script, Suite string
	// Replay, when set, drives the run from a recorded schedule instead of
	// the scenario's workload and nemesis generators.
	Replay *Replay
	// LeaveDBRunning skips the db's teardown after the run (Jepsen's
	// --leave-db-running), to poke at the system by hand; its logs are
	// still saved, and `faultline heal --session` tears it down later.
	LeaveDBRunning bool
}

// Replay is a recorded schedule to run again (faultline replay, re-runs).
type Replay struct {
	Events []Event
	// AsFastAsPossible ignores the recorded times and keeps only each
	// thread's order.
	AsFastAsPossible bool
}

// Result is what one run of a scenario produced.
type Result struct {
	Scenario string
	Tier     string
	Seed     uint64
	Virtual  bool // simulated time: the run replays byte for byte from Seed
	Budget   Budget
	// Scale is how many times slower than this host the nodes run, as
	// budgets allow for it (control.Pool.Scale): op timeouts are stretched
	// by it and op floors divided by it. 1 on nodes as fast as the host.
	Scale       float64
	Concurrency int
	// DBLeftRunning: the db was set up and, as asked, not torn down.
	DBLeftRunning bool
	Summary       gen.Summary
	Check         check.Result
	HistoryPath   string
	Ops           []history.Op
	// Problems are reasons the run cannot count as a pass whatever the
	// checker says: too little load, an interrupted run, faults that did
	// not show their landing evidence or could not be healed.
	Problems []string
	// Landing judges the scenario's landing evidence against the history.
	Landing []nemesis.Finding
	// Faults are the nemesis's fault windows and what clients saw in each.
	Faults []nemesis.Window
	// Scheduled are the faults the nemesis schedule asked for within the
	// workload (nil for a nemesis that is a custom generator, or a replay),
	// and Missed those of them, and any other injection, that never took
	// effect: never issued, failed, never completed.
	Scheduled []nemesis.Planned
	Missed    []nemesis.Miss
	// Quiet is the load the run keeps after its nemesis's last step
	// (nemesis.RecoveryTail, stretched on slow nodes), so recovery after
	// the last heal can be measured (RF8); QuietFrom is when that step
	// completed (ns since the run started, -1 when the nemesis took none),
	// marked "recovery" in the schedule; QuietNote says so in words, for
	// the session log.
	Quiet     time.Duration
	QuietFrom int64
	QuietNote string
	// Interrupted: the run was cancelled (Ctrl-C, a hard stop) before its
	// budget ended, so the history is a prefix of the planned run.
	Interrupted bool
	// Healed lists, per node, what the final HealAll removed.
	Healed nemesis.HealReport
	// LogFiles are the scenario's declared logs as the run saved them
	// (every node's, and the local ones), or why each was not: what the
	// log audit reads.
	LogFiles []logaudit.File
	// Limit names the run-time limit that ended the load early (a Starlark
	// step limit, the run's hard time limit); "" when none did. The
	// history up to it was still checked, and Problems says it too.
	Limit string `json:",omitempty"`
}

// Run executes s under the budget of opts.Tier and checks the history. The
// journal is on disk as the run goes, so a killed run leaves a checkable
// prefix; cancelling ctx (Ctrl-C, budget end) stops new ops promptly.
func Run(ctx context.Context, s *Scenario, o RunOptions) (*Result, error) {
	if o.Tier == "" {
		o.Tier = "smoke"
	}
	if o.CheckTimeout == 0 {
		o.CheckTimeout = 2 * time.Minute
	}
	if o.Log == nil {
		o.Log = func(string) {}
	}
	b, err := s.Budget(o.Tier)
	if err != nil {
		return nil, err
	}
	s = s.forTier(o.Tier)
	// With real nodes (--nodes, --nodes-file), client threads bind to them;
	// a scenario's own list only names nodes of an in-process system.
	nodes := s.Nodes
	if o.Pool != nil {
		nodes = nil
		for _, n := range o.Pool.Nodes() {
			nodes = append(nodes, n.Name)
		}
	}
	conc, err := gen.ParseConcurrency(s.Concurrency, len(nodes))
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	r := &Result{Scenario: s.Name, Tier: o.Tier, Seed: o.Seed, Budget: b, Concurrency: conc, Scale: 1,
		Virtual: s.Time == "virtual" || (s.Time == "auto" && s.Client.Simulated() && !o.Realtime)}
	r.QuietFrom = -1
	if s.Nemesis != nil && o.Replay == nil {
		r.Scheduled = s.Nemesis.Planned(b.Duration)
		r.Quiet = nemesis.RecoveryTail(b.Duration)
		if !r.Virtual && o.Pool != nil {
			// A slow node settles slowly too.
			r.Quiet = o.Pool.ScaleTimeout(r.Quiet)
		}
	}
	if s.Nemesis != nil {
		if o.Pool == nil {
			return nil, fmt.Errorf("scenario %q declares a nemesis but there are no nodes to inject faults on: pass --nodes or --nodes-file", s.Name)
		}
		if s.Time == "virtual" {
			return nil, fmt.Errorf("scenario %q: a nemesis acts on real nodes, so time cannot be \"virtual\"", s.Name)
		}
		r.Virtual = false
	}

	if len(s.Logs.Paths) > 0 && o.Pool == nil {
		return nil, fmt.Errorf("scenario %q declares log paths on its nodes (%s) but there are no nodes to fetch them from: pass --nodes or --nodes-file, or name files on this machine with system_logs(local_paths = [...])",
			s.Name, strings.Join(s.Logs.Paths, ", "))
	}
	if s.DB != nil && o.Pool == nil {
		return nil, fmt.Errorf("scenario %q has a db recipe but there are no nodes to set it up on: pass --nodes or --nodes-file", s.Name)
	}

	workload, err := stargen.FromStarlark(s.Workload)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: workload: %w", s.Name, err)
	}
	final, err := s.finalGenerator()
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	// The schedule's header (script, scenario, nodes, libraries) is written
	// before the db is set up: it is the record faultline heal --session
	// reads to tear down what a run killed during setup started.
	sched, err := NewScheduleWriter(filepath.Join(o.Dir, ScheduleFile), ScheduleHeader{
		Schedule: ScheduleVersion, Scenario: s.Name, Tier: o.Tier, Seed: o.Seed, Concurrency: conc,
		Nodes: nodes, Script: absPath(o.Script), Local: localPool(o.Pool),
		ScriptSHA256: fileSHA256(o.Script), SuiteSHA256: fileSHA256(o.Suite), Libs: s.libs, Started: time.Now().UTC(),
		Params: s.params, Overrides: s.overridesRecorded()})
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	defer sched.Close()
	for _, u := range s.libs {
		// Beside the schedule that names it: replay and heal --session load
		// this copy, so they need no --lib and survive the library's
		// directory.
		if err := u.writeCopy(o.Dir); err != nil {
			return nil, fmt.Errorf("scenario %q: %w", s.Name, err)
		}
	}
	setPhase(o.Status, "setup")
	// The db is torn down on every way out, after the heal (defers run in
	// reverse), so its teardown reaches every node.
	if o.Pool != nil {
		// Deferred first, so it runs last of all: the files faultline made
		// on the nodes for itself (its uploaded binary, which the db may
		// run, and the delay agent's) go once nothing runs from them.
		defer removeCreated(ctx, o.Pool, r)
	}
	if o.Pool != nil && (s.Nemesis != nil || o.Replay.hasNemesis()) {
		// Deferred before the db's teardown, so it runs after it.
		defer restoreKept(ctx, o.Pool, r)
	}
	saveLogs := logSaver(ctx, s, o, r)
	teardown := saveLogs // without a db, the declared logs are saved where its teardown would be
	var primaries func(context.Context) ([]string, error)
	if s.DB != nil {
		var err error
		teardown, err = dbLifecycle(ctx, s.DB, o, r, saveLogs)
		defer teardown()
		if err != nil {
			return r, fmt.Errorf("scenario %q: %w", s.Name, err)
		}
		primaries = s.DB.primariesFunc(o)
	}
	var nemWorker gen.Worker
	heal := func() {}
	g := gen.Clients(workload)
	if o.Replay != nil {
		g = replayGenerator(o.Replay)
	}
	if s.Nemesis != nil || o.Replay.hasNemesis() {
		var scripts []*nemesis.ScriptFault // faults the script defined (nemesis.fault)
		if s.Nemesis != nil {
			scripts = s.Nemesis.Scripts()
		}
		w, err := nemesis.New(nemesis.Options{Pool: o.Pool, Seed: seed.Split(o.Seed, "nemesis"), Primaries: primaries, Scripts: scripts})
		if err != nil {
			return nil, fmt.Errorf("scenario %q: %w", s.Name, err)
		}
		nemWorker = w
		// Heal on every way out: after the workload, on error, on cancel.
		heal = healer(ctx, o.Pool, scripts, r)
		defer heal()
	}
	if o.Replay == nil {
		// A replay ends with its schedule, final heal included.
		if s.Nemesis != nil {
			// The load runs its time on the schedule's clock, which stands
			// still while a fault is being applied: on slow nodes every fault
			// still lands under load, with the plan's spacing around it; and
			// the load runs on for r.Quiet after the nemesis's last step, so
			// the run ends on a healed system whose recovery RF8 can measure.
			g = gen.Alongside(b.Duration, r.Quiet, g, gen.Nemesis(s.Nemesis.Within(b.Duration)))
		} else {
			g = gen.TimeLimit(b.Duration, g)
		}
		if s.Nemesis != nil {
			g = gen.Then(g, gen.Nemesis(s.Nemesis.Final()))
		}
		// The final phase (scenario final=): client ops on the healed, quiet
		// system, after every workload op and the heal have completed.
		if final != nil {
			g = gen.Then(g, gen.TimeLimit(s.FinalTimeout, gen.Clients(final)))
		}
	}

	r.HistoryPath = filepath.Join(o.Dir, "history.jsonl")
	journal, err := history.Create(r.HistoryPath)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	defer journal.Close()

	// A client that captures its own output (client.process's stderr)
	// writes it beside the nodes' logs, which the session keeps.
	clientCtx := ctx
	if o.Dir != "" {
		clientCtx = client.WithLogDir(ctx, filepath.Join(o.Dir, "logs"))
	}
	sess, err := startClient(clientCtx, s.Client, seed.Split(o.Seed, "client"), o.Pool, o.Print)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: start client: %w", s.Name, err)
	}
	defer sess.Close()

	// Slow (emulated) nodes stretch the op timeout by their measured
	// slowdown (control.Pool.ScaleTimeout), so an op is not declared info
	// for the emulation's slowness alone.
	opTimeout := s.OpTimeout
	if !r.Virtual {
		r.Scale = o.Pool.Scale()
		opTimeout = o.Pool.ScaleTimeout(s.OpTimeout)
		if opTimeout != s.OpTimeout && o.Log != nil {
			o.Log(fmt.Sprintf("op timeout %s scaled to %s: the nodes run %.1fx slower than this host (their nodes file says)", s.OpTimeout, opTimeout, o.Pool.Slowdown()))
		}
	}
	runCtx := ctx
	if !r.Virtual {
		// A hard stop past the budget, in case an op or the generator ignores time.
		var cancel context.CancelFunc
		limit := b.Duration
		if o.Replay != nil {
			limit = o.Replay.duration()
		} else if final != nil {
			limit += s.FinalTimeout + opTimeout // the final phase's own bound
		}
		if s.Nemesis != nil && o.Replay == nil {
			// The load waits out the nemesis's steps (gen.Alongside): allow
			// each planned step (an inject and its heal, or a custom
			// schedule's few) its own timeout, and the final heal one.
			limit += time.Duration(2*max(len(r.Scheduled), 1)+1)*gen.DefaultNemesisTimeout + r.Quiet
		}
		runCtx, cancel = context.WithTimeoutCause(ctx, limit+opTimeout+10*time.Second,
			errors.New("budget exhausted"))
		defer cancel()
	}
	thread := newThread(runCtx, "generator", o.Print, nil, b.Steps, o.Pool)
	stopWatch := watchCancel(runCtx, thread)
	defer stopWatch()
	// No step limit on the run as a whole unless the budget sets one: a
	// long run at full rate takes billions of steps. Each callback has its
	// own (stargen.CallSteps), which only an endless loop reaches.
	env := stargen.NewEnv(thread)
	env.SetRunSteps(b.Steps)

	stats := &gen.Stats{}
	live := startStatus(o.Status, stats, b.Duration, r.Virtual)
	cfg := gen.Config{
		Concurrency: conc,
		Nodes:       nodes,
		Client: func(thread, process int) (gen.Worker, error) {
			return sess.Open(thread, process, nodes[thread%len(nodes)])
		},
		OpTimeout: opTimeout,
		Seed:      o.Seed,
		OpLimit:   b.Ops,
		Virtual:   r.Virtual,
		Record: func(op history.Op) error {
			if _, err := journal.Append(op); err != nil {
				return err
			}
			live.note(op) // its nemesis ops tell the status the active fault
			return sched.Record(op)
		},
		Env:     env,
		Log:     o.Log,
		Stats:   stats,
		Nemesis: nemWorker,
	}
	sum, runErr := gen.Run(runCtx, g, cfg)
	live.stop()
	r.Summary = sum
	if sum.NemesisTime >= time.Second && o.Log != nil && o.Replay == nil {
		o.Log(fmt.Sprintf("the nemesis spent %s applying and healing faults; the schedule's clock stood still meanwhile, so the load ran that much past its %s",
			sum.NemesisTime.Round(100*time.Millisecond), b.Duration))
	}
	r.Interrupted = sum.Cancelled || ctx.Err() != nil
	if s.Nemesis != nil && o.Replay == nil {
		if err := markQuiet(r, journal.Ops(), b.Duration, sched, o.Log); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := journal.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("journal: %w", err)
	}
	if err := sched.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("schedule: %w", err)
	}
	r.Ops = journal.Ops()
	if r.Limit = runLimit(runErr, runCtx, ctx); r.Limit != "" {
		// The history is the product: a limit ends the load, and what was
		// recorded until then is healed, checked and reported like any run.
		r.Problems = append(r.Problems, fmt.Sprintf("the load ended early, after %d ops: %s", countClientOps(r.Ops), r.Limit))
		runErr = nil
	}
	if runErr != nil {
		return r, fmt.Errorf("scenario %q: %w", s.Name, scriptError(runErr))
	}

	// An info op may or may not have happened: the floor counts ops with
	// a known outcome, ok or fail.
	if need := verdict.ScaledFloor(b.MinOps, r.Scale); b.MinOps > 0 && sum.OK+sum.Fail < need {
		r.Problems = append(r.Problems, fmt.Sprintf("only %d of %d ops had a known outcome (ok or fail); the %s budget needs %s", sum.OK+sum.Fail, sum.Invoked, o.Tier, verdict.FloorText(b.MinOps, r.Scale)))
	}
	if r.Interrupted {
		r.Problems = append(r.Problems, "the run was interrupted before its budget ended")
	}
	if s.Nemesis != nil {
		heal() // now, before checking, which can take minutes
		r.Faults = nemesis.FaultWindows(r.Ops)
		r.Missed = nemesis.Missed(r.Scheduled, r.Ops, b.Duration, r.Interrupted)
		r.Landing = nemesis.Evaluate(s.Landing, r.Ops)
		for _, f := range r.Landing {
			if !f.Pass {
				r.Problems = append(r.Problems, fmt.Sprintf("landing evidence %s not seen: %s", f.Decl, f.Evidence))
			}
		}
	}
	if e, ok := sess.(client.Ender); ok {
		// The client's own teardown may use the system: before the db's.
		if err := e.End(); err != nil {
			r.Problems = append(r.Problems, err.Error())
		}
	}
	teardown() // likewise: free the nodes before a long check

	// Check even after Ctrl-C: what was recorded deserves a verdict.
	checkCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.CheckTimeout+time.Minute)
	defer cancel()
	r.Check = check.Run(checkCtx, s.Checker, r.Ops, check.Env{OutDir: o.Dir, Timeout: o.CheckTimeout})
	if err := writeCheck(o.Dir, r.Check); err != nil {
		return r, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	return r, nil
}

// runLimit names the run-time limit that stopped the generator with err,
// with what the user can change; "" when err is no limit (nil, or a
// failure of the scenario itself).
func runLimit(err error, runCtx, ctx context.Context) string {
	var sl *stargen.StepLimitError
	if errors.As(err, &sl) {
		// Where: the generator's path down to the callback, without the
		// limit's own words.
		where := strings.TrimSuffix(err.Error(), ": "+sl.Error())
		if sl.PerCall {
			return fmt.Sprintf("one generator callback (%s) took more than %d Starlark steps, the bound on a single callback: an endless loop in the scenario's generator?", where, sl.Limit)
		}
		return fmt.Sprintf("the generator (%s) used up the budget's %d Starlark steps (budget(steps=...)); raise it, or leave it unset for no limit on the run", where, sl.Limit)
	}
	switch {
	case err == nil:
		return ""
	case runCtx.Err() != nil && ctx.Err() == nil:
		return fmt.Sprintf("the run's hard time limit (the budget's duration plus the nemesis's and the op timeouts) stopped the generator: %v", err)
	}
	return ""
}

// countClientOps counts the client completions in a history.
func countClientOps(ops []history.Op) int {
	n := 0
	for _, op := range ops {
		if !op.IsNemesis() && op.Type != history.Invoke {
			n++
		}
	}
	return n
}

// fileSHA256 is the hex digest of a file, "" when there is none to read.
func fileSHA256(path string) string {
	data, err := os.ReadFile(path)
	if path == "" || err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func absPath(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// localPool says whether the run's nodes are local (--local) ones.
func localPool(p *control.Pool) bool {
	return p != nil && len(p.Nodes()) > 0 && p.Nodes()[0].Dir != ""
}

// markQuiet finds the stretch of load after the nemesis's last step (before
// the final heal) in ops, sets r.QuietFrom, marks it in the schedule as the
// phase "recovery" and says how long it was, and whether the load ran past
// its budget d to keep it.
func markQuiet(r *Result, ops []history.Op, d time.Duration, sched *ScheduleWriter, log func(string)) error {
	var last, end int64 = -1, -1
	for _, op := range ops {
		if op.IsNemesis() {
			if op.F == "heal" {
				break // the final heal: the load is over
			}
			if op.Type != history.Invoke {
				last = op.Time
			}
			continue
		}
		if op.Type != history.Invoke {
			end = max(end, op.Time)
		}
	}
	if last < 0 {
		return nil
	}
	r.QuietFrom = last
	if err := sched.Phase(time.Duration(last), "recovery"); err != nil {
		return err
	}
	if end <= last {
		r.QuietNote = fmt.Sprintf("no load after the nemesis's last step at T+%s: recovery after the last heal cannot be measured", time.Duration(last).Round(time.Millisecond))
		log(r.QuietNote)
		return nil
	}
	msg := fmt.Sprintf("recovery: no fault after T+%s; the load ran %s more on the healed system (the recovery tail is at least %s), where RF8 measures recovery",
		time.Duration(last).Round(time.Millisecond), time.Duration(end-last).Round(100*time.Millisecond), r.Quiet)
	if over := time.Duration(end) - d - r.Summary.NemesisTime; over >= time.Second && time.Duration(last)+r.Quiet > d+r.Summary.NemesisTime {
		msg += fmt.Sprintf(", %s past its %s to keep that stretch", over.Round(100*time.Millisecond), d)
	}
	r.QuietNote = msg
	log(msg)
	return nil
}

// replayGenerator drives a run from recorded events: each op on the thread
// it was recorded on, at its recorded time (or as soon as the thread is
// free), nemesis events with their resolved targets.
func replayGenerator(r *Replay) gen.Generator {
	events := make([]gen.Scheduled, 0, len(r.Events))
	for _, e := range r.Events {
		if e.Phase != "" || e.Failed {
			continue // markers, and faults that did nothing
		}
		events = append(events, gen.Scheduled{At: e.T, Thread: e.Thread,
			Op: history.Op{Type: history.Invoke, F: e.F, Key: e.Key, Value: e.Value}})
	}
	return gen.Schedule(events, gen.ScheduleOptions{AsFastAsPossible: r.AsFastAsPossible})
}

func (r *Replay) hasNemesis() bool {
	if r == nil {
		return false
	}
	for i := range r.Events {
		if r.Events[i].IsNemesis() {
			return true
		}
	}
	return false
}

// duration is when the last recorded event was due.
func (r *Replay) duration() time.Duration {
	var d time.Duration
	for _, e := range r.Events {
		d = max(d, e.T)
	}
	return d
}

// startClient starts the client's run, giving a client of real nodes the
// pool's node addresses.
func startClient(ctx context.Context, c client.Client, seed uint64, pool *control.Pool, out io.Writer) (client.Session, error) {
	if ps, ok := c.(client.PoolStarter); ok && pool != nil {
		// A client written in Starlark gets the nodes themselves.
		return ps.StartPool(ctx, seed, pool, out)
	}
	if ss, ok := c.(client.ServiceStarter); ok && pool != nil {
		// The pool's Network knows where each node's service is: its host
		// and port, or in local mode the proxy of the client's link to it.
		net := pool.Network()
		return ss.StartServices(seed, func(node, service string, port int) (string, bool) {
			a, err := net.DialAddr(control.ClientEndpoint, node, service, port)
			return a, err == nil
		})
	}
	ns, ok := c.(client.NodeStarter)
	if !ok || pool == nil {
		return c.Start(seed)
	}
	return ns.StartNodes(seed, func(name string) (string, bool) {
		n, ok := pool.Node(name)
		return n.Host, ok
	})
}

// healer returns a func that heals every node once, with a fresh context
// so a cancelled run still heals, and notes in r what it removed or why it
// failed. Calling it again does nothing.
func healer(ctx context.Context, pool *control.Pool, scripts []*nemesis.ScriptFault, r *Result) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			rep, err := nemesis.HealAll(hctx, pool)
			// The script's own faults: their heal runs on every node.
			srep, serr := nemesis.HealScripts(hctx, pool, scripts)
			maps.Copy(rep, srep)
			err = errors.Join(err, serr)
			r.Healed = rep
			if err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("healing faults failed: %v (run 'faultline heal' with the same nodes)", err))
			}
		})
	}
}

// restoreKept puts back the files the run's file faults damaged
// (nemesis.RestoreKept), once the db's teardown has removed the db's own:
// a truncate or bitflip aimed at a file of the node's does not outlive the
// run. What it did joins r.Healed.
func restoreKept(ctx context.Context, pool *control.Pool, r *Result) {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	rep, err := nemesis.RestoreKept(hctx, pool)
	for n, lines := range rep {
		if r.Healed == nil {
			r.Healed = nemesis.HealReport{}
		}
		r.Healed[n] = append(r.Healed[n], lines...)
	}
	if err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("restoring the files file faults damaged failed: %v (run 'faultline heal' with the same nodes)", err))
	}
}

// removeCreated removes what faultline made on the nodes for itself
// (control.RemoveCreated): a run leaves no binary or agent file of
// faultline's behind. What it removed joins r.Healed.
func removeCreated(ctx context.Context, pool *control.Pool, r *Result) {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	rep, err := control.RemoveCreatedEverywhere(hctx, pool)
	for n, lines := range rep {
		if r.Healed == nil {
			r.Healed = nemesis.HealReport{}
		}
		r.Healed[n] = append(r.Healed[n], lines...)
	}
	if err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("removing the files faultline made on the nodes failed: %v (run 'faultline heal' with the same nodes)", err))
	}
}

// Validate checks that s can run at tier without running it: the budget
// exists, concurrency parses, and the workload is a generator.
func Validate(s *Scenario, tier string) error {
	if _, err := s.Budget(tier); err != nil {
		return err
	}
	if _, err := gen.ParseConcurrency(s.Concurrency, len(s.Nodes)); err != nil {
		return fmt.Errorf("concurrency: %w", err)
	}
	if _, err := stargen.FromStarlark(s.Workload); err != nil {
		return fmt.Errorf("workload: %w", err)
	}
	_, err := s.finalGenerator()
	return err
}

// writeCheck saves the checker's result as checker.json and, when there is
// one, its explanation as checker.txt.
func writeCheck(dir string, res check.Result) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode checker result: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "checker.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write checker result: %w", err)
	}
	text := res.Summary + "\n"
	if res.Explanation != "" {
		text += "\n" + res.Explanation + "\n"
	}
	return os.WriteFile(filepath.Join(dir, "checker.txt"), []byte(text), 0o644)
}
