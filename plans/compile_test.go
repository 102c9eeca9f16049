package plans

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/syntax"

	"github.com/faultline/faultline/star/dialect"
)

// compileFile loads a testdata plan and compiles it with its source, as the
// CLI does; a missing file fails the test.
func compileFile(t *testing.T, path string, o CompileOptions) ([]CompiledScenario, []Diagnostic) {
	t.Helper()
	p, _ := parseFile(t, path)
	o.Source = readFile(t, path)
	return Compile(p, o)
}

// mustParseStarlark fails the test when src is not valid Starlark.
func mustParseStarlark(t *testing.T, name, src string) {
	t.Helper()
	if _, err := (&syntax.FileOptions{}).Parse(name, src, 0); err != nil {
		t.Fatalf("%s does not parse: %v\n%s", name, err, src)
	}
}

func TestCompileGolden(t *testing.T) {
	for _, name := range []string{"etcd-register", "boundary-arms"} {
		t.Run(name, func(t *testing.T) {
			cs, ds := compileFile(t, filepath.Join("testdata", name+".md"), CompileOptions{})
			if len(cs) == 0 {
				t.Fatal("no scenarios compiled")
			}
			for _, c := range cs {
				mustParseStarlark(t, c.File, c.Source)
				checkGolden(t, filepath.Join("testdata", "compile", c.File), []byte(c.Source))
			}
			checkGolden(t, filepath.Join("testdata", "compile", name+".diag.golden"), []byte(diagStrings(ds)))
		})
	}
}

// TestVocabularyDoc keeps docs/plan-vocabulary.md equal to the tables.
func TestVocabularyDoc(t *testing.T) {
	checkGolden(t, filepath.Join("..", "docs", "plan-vocabulary.md"), []byte(VocabularyMarkdown()))
}

// unitPlan is a one-scenario plan whose fields the table tests fill in.
type unitPlan struct {
	workload, faults, oracle, smoke, hardening, landing, extra string
}

func (u unitPlan) source() string {
	def := func(v, d string) string {
		if v == "" {
			return d
		}
		return v
	}
	s := "# Test Plan: t\n\n## 7. Scenarios\n\n### Scenario S1: unit\n\n" +
		"- **Workload:** " + def(u.workload, "register") + "\n" +
		"- **Faults:** " + def(u.faults, "none") + "\n" +
		"- **Oracle:** " + def(u.oracle, "linearizable") + "\n" +
		"- **Smoke budget:** " + def(u.smoke, "3 nodes, 1 min, 0 faults, 1 seed") + "\n"
	if u.hardening != "" {
		s += "- **Hardening budget:** " + u.hardening + "\n"
	}
	if u.landing != "" {
		s += "\n#### §7.M — Model / history / checker discipline\n\n- **Nemesis + landing evidence:** " + u.landing + "\n"
	}
	return s + u.extra
}

// compileUnit compiles u and returns its only file and the diagnostics.
func compileUnit(t *testing.T, u unitPlan) (CompiledScenario, []Diagnostic) {
	t.Helper()
	src := []byte(u.source())
	p, _ := Parse("plan.md", src)
	cs, ds := Compile(p, CompileOptions{Source: src})
	if len(cs) != 1 {
		t.Fatalf("compiled %d scenarios, want 1", len(cs))
	}
	mustParseStarlark(t, cs[0].File, cs[0].Source)
	return cs[0], ds
}

// wantIn fails unless every snippet is in the generated source.
func wantIn(t *testing.T, c CompiledScenario, snippets ...string) {
	t.Helper()
	for _, s := range snippets {
		if !strings.Contains(c.Source, s) {
			t.Errorf("generated file lacks %q:\n%s", s, c.Source)
		}
	}
}

func TestCompileWorkload(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"register", []string{`"register")`, "workload = register()"}},
		{"cas-register over 8 keys", []string{`"cas_register")`, "cas_register(keys = 8)"}},
		{"compare-and-swap register, 3 keys", []string{"cas_register(keys = 3)"}},
		{"cas-register over 6 keys, 30 ops per key; 150 ops/s total", []string{`gen.stagger("6.666666ms", cas_register(keys = 6, ops_per_key = 30))`}},
		{"list-append over 10 keys", []string{"list_append(key_count = 10)"}},
		{"rw-register over 4 keys", []string{"rw_register(key_count = 4)"}},
		{"rw-register", []string{"rw_register()"}},
		{"bank transfers between 5 accounts", []string{"workload = bank()"}},
		{"set workload, 100 adds", []string{"workload = set()"}},
		{"counter increments", []string{"workload = counter()"}},
		{"unique-ids from every node", []string{"workload = unique_ids()"}},
		{"a queue with enqueue and dequeue", []string{"workload = queue()"}},
		{"register, 2 clients per node", []string{`concurrency = "2n"`}},
		{"register, 10 clients", []string{"concurrency = 10"}},
		{"register at 200 ops/s total", []string{`gen.stagger("5ms", register())`}},
		{"register at 50 ops per second", []string{`gen.stagger("20ms", register())`}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			c, ds := compileUnit(t, unitPlan{workload: tt.text, oracle: "set checker, counter checker"})
			wantIn(t, c, tt.want...)
			for _, d := range ds {
				if d.Field == FieldWorkload {
					t.Errorf("unexpected diagnostic %s", d)
				}
			}
		})
	}
}

func TestCompileFaults(t *testing.T) {
	tests := []struct {
		text string
		want string
	}{
		{"majority/minority partition isolating the leader at T+30s for 20s", `nemesis.partition(spec = "primaries", start = "30s", hold = "20s", repeat = False)`},
		{"leader partition for 30 s at T+2min", `nemesis.partition(spec = "primaries", start = "2m", hold = "30s", repeat = False)`},
		{"minority partition every 10s", `nemesis.partition(spec = "minority", interval = "10s")`},
		{"partition into halves for 1 min", `nemesis.partition(spec = "halves", hold = "1m", repeat = False)`},
		{"iptables DROP isolating one node", `nemesis.partition(spec = "one", repeat = False)`},
		{"kill -9 of the leader at T+90s, restart after 10s", `nemesis.kill(nodes = "primaries", start = "90s", restart = "10s", repeat = False, pattern = suite.db.kill_pattern, command = suite.db.start, pidfile = suite.db.pidfile, logfile = suite.db.logfile, ready = getattr(suite.db, "ready", None))`},
		{"kill -9 of one node for 15s", `nemesis.kill(nodes = "one", restart = "15s", repeat = False, pattern = suite.db.kill_pattern, command = suite.db.start, pidfile = suite.db.pidfile, logfile = suite.db.logfile, ready = getattr(suite.db, "ready", None))`},
		{"SIGKILL a minority every 30s", `nemesis.kill(nodes = "minority", interval = "30s", pattern = suite.db.kill_pattern, command = suite.db.start, pidfile = suite.db.pidfile, logfile = suite.db.logfile, ready = getattr(suite.db, "ready", None))`},
		{"SIGSTOP the leader for 5s", `nemesis.pause(nodes = "primaries", hold = "5s", repeat = False, pattern = suite.db.kill_pattern)`},
		{"pause one node at T+10s", `nemesis.pause(nodes = "one", start = "10s", repeat = False, pattern = suite.db.kill_pattern)`},
		{"packet loss 30%", `nemesis.loss(nodes = "all", probability = 0.3, repeat = False)`},
		{"25% packet loss on the leader", `nemesis.loss(nodes = "primaries", probability = 0.25, repeat = False)`},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			c, ds := compileUnit(t, unitPlan{faults: tt.text})
			wantIn(t, c, "nemesis = "+tt.want+",")
			if ds = withoutBeyondTier(ds); len(ds) != 0 {
				t.Errorf("unexpected diagnostics:\n%s", diagStrings(ds))
			}
		})
	}
}

// withoutBeyondTier drops the warnings of faults that start after a tier's
// runs end (TestCompileFaultBeyondTier covers them).
func withoutBeyondTier(ds []Diagnostic) []Diagnostic {
	return slices.DeleteFunc(ds, func(d Diagnostic) bool { return strings.Contains(d.Msg, "never happens in the") })
}

// A fault that starts at or after the end of a tier's runs is a warning:
// that tier's runs never inject it.
func TestCompileFaultBeyondTier(t *testing.T) {
	_, ds := compileUnit(t, unitPlan{faults: "kill -9 of the leader at T+90s, restart after 10s", hardening: "5 nodes, 10 min, 8 faults, 3 seeds"})
	if len(ds) != 1 || ds[0].Severity != Warning || !strings.Contains(ds[0].Msg, "kill at T+1m30s never happens in the smoke tier (its runs last 1m0s)") {
		t.Errorf("diagnostics:\n%s\nwant one warning that the smoke tier never reaches the kill", diagStrings(ds))
	}
}

func TestCompileSchedules(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		// A schedule "in the hardening tier" is that tier's alone.
		{"kill -9 of the leader at T+90s, restart after 10s; repeat every 2 min in the hardening tier",
			[]string{"nemesis = {", `"smoke": nemesis.kill(nodes = "primaries", start = "90s", restart = "10s", repeat = False, pattern = suite.db.kill_pattern, command = suite.db.start, pidfile = suite.db.pidfile, logfile = suite.db.logfile, ready = getattr(suite.db, "ready", None)),`,
				`"hardening": nemesis.kill(nodes = "primaries", start = "90s", interval = "2m", restart = "10s", pattern = suite.db.kill_pattern, command = suite.db.start, pidfile = suite.db.pidfile, logfile = suite.db.logfile, ready = getattr(suite.db, "ready", None)),`}},
		{"kill -9 of the current leader at T+20s, restart after 15s; 4 kills per hardening run, 60 s apart",
			[]string{`"smoke": nemesis.kill(nodes = "primaries", start = "20s", restart = "15s", repeat = False, pattern = suite.db.kill_pattern, command = suite.db.start, pidfile = suite.db.pidfile, logfile = suite.db.logfile, ready = getattr(suite.db, "ready", None)),`,
				`"hardening": nemesis.kill(nodes = "primaries", start = "20s", interval = "1m", restart = "15s", pattern = suite.db.kill_pattern, command = suite.db.start, pidfile = suite.db.pidfile, logfile = suite.db.logfile, ready = getattr(suite.db, "ready", None)),`}},
		{"minority partition at T+30s for 20s; kill -9 of one node at T+90s; repeat the pair every 2 min",
			[]string{"nemesis.compose([", `nemesis.partition(spec = "minority", start = "30s", hold = "20s", interval = "2m"),`,
				`nemesis.kill(nodes = "one", start = "90s", interval = "2m", pattern = suite.db.kill_pattern, command = suite.db.start, pidfile = suite.db.pidfile, logfile = suite.db.logfile, ready = getattr(suite.db, "ready", None)),`}},
		{"pause the leader for 500ms every 1 hour", []string{`nemesis.pause(nodes = "primaries", hold = "500ms", interval = "1h", pattern = suite.db.kill_pattern)`}},
		// T+0s is a fault at the start, not a dropped phrase.
		{"minority partition at T+0s for 20s", []string{`nemesis.partition(spec = "minority", start = "0s", hold = "20s", repeat = False)`}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			c, ds := compileUnit(t, unitPlan{faults: tt.text, hardening: "5 nodes, 10 min, 8 faults, 3 seeds"})
			wantIn(t, c, tt.want...)
			if ds = withoutBeyondTier(ds); len(ds) != 0 {
				t.Errorf("unexpected diagnostics:\n%s", diagStrings(ds))
			}
		})
	}
}

func TestCompileChecker(t *testing.T) {
	tests := []struct {
		workload, oracle string
		want             []string
	}{
		{"cas-register", "linearizable (Porcupine)", []string{`check.linearizable(model = "cas-register")`, "check.stats()"}},
		{"register", "linearizability plus no-lost-ack", []string{`check.linearizable(model = "register")`, "check.no_lost_ack()"}},
		{"list-append", "strict serializable (Elle)", []string{`check.transactional(workload = "list-append", consistency_models = ["strict-serializable"])`}},
		{"rw-register", "snapshot isolation", []string{`check.transactional(workload = "rw-register", consistency_models = ["snapshot-isolation"])`}},
		{"set workload", "set-full checker", []string{"check.set()"}},
		{"counter", "counter checker", []string{"check.counter()"}},
		{"bank", "total balance conserved: bank checker", []string{"check.bank()"}},
		{"register", "monotonic reads and read-your-writes", []string{"check.monotonic_reads()", "check.read_your_writes()"}},
		{"queue", "exactly-once delivery", []string{"check.exactly_once()"}},
		{"register", "replicas pairwise equal after heal", []string{"check.replicas()"}},
		{"register", "writes resume within 10 s of each leader kill", []string{`check.recovery(within = "10s", f = ["write", "cas"])`}},
		{"register", "a new leader is elected within 5s", []string{`check.recovery(within = "5s")`}},
		{"register", "the cluster fails over in less than 1.5 minutes", []string{`check.recovery(within = "90s")`}},
		{"register", "service recovers within 500 ms of the heal", []string{`check.recovery(within = "500ms")`}},
		// The spec's oracle families (§4) with their bounds from the text.
		{"register", "p99 latency under 200 ms", []string{`check.slo(p99 = "200ms")`}},
		{"register", "p99 < 200ms", []string{`check.slo(p99 = "200ms")`}},
		{"register", "PUT p99 ≤ 20 ms and p50 <= 2 ms", []string{`check.slo(p99 = "20ms", p50 = "2ms", f = ["write", "put", "cas"])`}},
		{"register", "≤ 250 ms p99.9 over 10 s windows, error rate < 1%", []string{`check.slo(p999 = "250ms", error_rate = 0.01, window = "10s")`}},
		{"register", "availability ≥ 99.9% for reads", []string{`check.slo(error_rate = 0.001, f = ["read", "get"])`}},
		{"tenants", "worst_group_p99 / aggregate_p99 <= 2 per tenant; min_group_throughput >= 50; error_rate_by_group == 0",
			[]string{`check.fairness(group = "tenant", max_p99_ratio = 2, min_throughput = 50, max_error_rate = 0)`}},
		{"register", "repeat_spread <= 10%", []string{`check.fairness(repeat = "repeat", max_spread = 0.1)`}},
		{"tenants", "tenant B's keys never appear in any response", []string{"check.boundary()"}},
		{"tenants", "0 cross-tenant reads; positive controls: each tenant reads its own keys", []string{"check.boundary()"}},
		{"tenants", "cross_tenant_reads == 0 over every adversarial pair", []string{"check.boundary()"}},
	}
	for _, tt := range tests {
		t.Run(tt.oracle, func(t *testing.T) {
			c, ds := compileUnit(t, unitPlan{workload: tt.workload, oracle: tt.oracle})
			wantIn(t, c, tt.want...)
			if len(ds) != 0 {
				t.Errorf("unexpected diagnostics:\n%s", diagStrings(ds))
			}
		})
	}
}

func TestCompileEvidence(t *testing.T) {
	tests := []struct {
		faults, landing string
		want            string
	}{
		{"minority partition", "DROP counter on the minority goes from 0 to >0", "landing = [evidence.iptables_drops(min = 1)],"},
		{"minority partition", "clients on the minority see timeouts in the window", "landing = [evidence.op_errors(during_fault = True)],"},
		{"kill -9 of the leader", "the etcd PID is gone", `landing = [evidence.process_state(state = "gone")],`},
		{"SIGSTOP one node", "a heartbeat gap on its peers", `landing = [evidence.process_state(state = "stopped")],`},
		{"minority partition", "", "landing = [evidence.iptables_drops(min = 1)],"},
		{"kill -9 of one node", "", `landing = [evidence.process_state(state = "gone")],`},
		{"packet loss 30%", "", "landing = [evidence.op_errors(during_fault = True)],"},
	}
	for _, tt := range tests {
		t.Run(tt.faults+"/"+tt.landing, func(t *testing.T) {
			c, ds := compileUnit(t, unitPlan{faults: tt.faults, landing: tt.landing})
			wantIn(t, c, tt.want)
			if len(ds) != 0 {
				t.Errorf("unexpected diagnostics:\n%s", diagStrings(ds))
			}
		})
	}
}

func TestCompileBudgets(t *testing.T) {
	tests := []struct {
		smoke string
		want  string
	}{
		{"3 nodes, 1 min, 0 faults, 1 seed, ≥1k ops", `"smoke": budget(duration = "1m", min_ops = 1000, faults = 0, seeds = 1),`},
		{"5 nodes, 2 hours, 100 faults, 5 seeds", `"smoke": budget(duration = "2h", faults = 100, seeds = 5),`},
		{"90 s, fault-free", `"smoke": budget(duration = "90s", faults = 0),`},
		{"not provided — no rig. Revisit when: the rig exists.", "# smoke (plan line 10): not provided — no rig"},
	}
	for _, tt := range tests {
		t.Run(tt.smoke, func(t *testing.T) {
			c, ds := compileUnit(t, unitPlan{smoke: tt.smoke,
				extra: "- **Hardening budget:** 5 nodes, 10 min, 2 faults, 3 seeds\n"})
			wantIn(t, c, tt.want, `"hardening": budget(duration = "10m", faults = 2, seeds = 3),`)
			if len(ds) != 0 {
				t.Errorf("unexpected diagnostics:\n%s", diagStrings(ds))
			}
		})
	}
}

func TestCompileOverrides(t *testing.T) {
	tests := []struct {
		name  string
		u     unitPlan
		want  []string
		whole bool
	}{
		{"workload field", unitPlan{workload: "blobs write 500 keys", oracle: "no-lost-ack",
			extra: "\n```starlark\nworkload = gen.mix([\n    put(),\n])\n```\n"},
			[]string{"# override: ```starlark block at plan line 12", "workload = gen.mix([\n        put(),\n    ]),"}, false},
		{"checker field", unitPlan{oracle: "cross_tenant_reads == 0",
			extra: "\n```starlark\n# the predicate, spelled out\nchecker = check.compose([cross_tenant()])\n```\n"},
			[]string{"checker = check.compose([cross_tenant()]),"}, false},
		{"nested under a field", unitPlan{faults: "a bespoke disk fault",
			extra: "- **Technique:** custom\n\n  ```starlark\n  nemesis = my_disk_fault()\n  ```\n"},
			[]string{"nemesis = my_disk_fault(),"}, false},
		{"whole scenario", unitPlan{extra: "\n```starlark\nload(\"x.star\", \"s\")\n\nscenario(name = \"S1\", client = s.client, workload = s.w, checker = s.c)\n```\n"},
			[]string{ProvenanceMarker, "scenario(name = \"S1\", client = s.client"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ds := compileUnit(t, tt.u)
			wantIn(t, c, tt.want...)
			if c.Override != tt.whole {
				t.Errorf("Override = %v, want %v", c.Override, tt.whole)
			}
			if len(ds) != 0 {
				t.Errorf("an override must answer the diagnostic:\n%s", diagStrings(ds))
			}
		})
	}
}

// TestCompileArmOverride checks a block under an arm's heading applies to
// that arm only, and a block in the scenario's own part to every arm.
func TestCompileArmOverride(t *testing.T) {
	tests := []struct {
		before string // the block goes right before this heading
		want   map[string]bool
	}{
		{"#### Arm S1/metrics", map[string]bool{"S1/api": false, "S1/export": true, "S1/metrics": false}},
		{"#### Arm S1/api", map[string]bool{"S1/api": true, "S1/export": true, "S1/metrics": true}},
	}
	orig := string(readFile(t, filepath.Join("testdata", "boundary-arms.md")))
	for _, tt := range tests {
		t.Run(tt.before, func(t *testing.T) {
			src := []byte(strings.Replace(orig, tt.before, "```starlark\nworkload = tenant_reads()\n```\n\n"+tt.before, 1))
			p, _ := Parse("boundary-arms.md", src)
			cs, _ := Compile(p, CompileOptions{Source: src})
			if len(cs) != len(tt.want) {
				t.Fatalf("compiled %d arms, want %d", len(cs), len(tt.want))
			}
			for _, c := range cs {
				if got := strings.Contains(c.Source, "workload = tenant_reads(),"); got != tt.want[c.ID] {
					t.Errorf("%s overridden = %v, want %v", c.ID, got, tt.want[c.ID])
				}
			}
		})
	}
}

func TestCompileUnmapped(t *testing.T) {
	tests := []struct {
		name  string
		u     unitPlan
		sev   Severity
		field string
		line  int
		msg   string
	}{
		{"workload", unitPlan{workload: "blobs write 500 keys", oracle: "no-lost-ack"}, Error, FieldWorkload, 7, `names no known model`},
		{"oracle slo percentile", unitPlan{oracle: "p95 latency under 200 ms"}, Error, FieldOracle, 9, "slo (check.slo bounds p50, p99 and p99.9, not p95)"},
		{"oracle slo throughput", unitPlan{oracle: "p99 < 20ms and throughput >= 1000 ops/s"}, Error, FieldOracle, 9, "not throughput"},
		{"oracle slo zero bound", unitPlan{oracle: "p99 < 0ms"}, Error, FieldOracle, 9, "is not a positive duration"},
		{"oracle fairness without threshold", unitPlan{oracle: "per-group p99 compared across tenants"}, Error, FieldOracle, 9, "fairness (no threshold"},
		{"oracle predicate beside a checker", unitPlan{oracle: "linearizable, dup_count == 0"}, Error, FieldOracle, 9, "oracle names predicate"},
		{"boundary on a register workload", unitPlan{oracle: "tenant B's keys never appear in any response"}, Warning, FieldOracle, 9,
			"boundary needs ops that carry a tenant"},
		{"mutual exclusion needs lock ops", unitPlan{oracle: "mutual exclusion: at most one holder"}, Warning, FieldOracle, 9, "acquire and release ops"},
		{"prefix order needs views", unitPlan{oracle: "prefix order of every consumer view"}, Warning, FieldOracle, 9, "consumer reads that return the log"},
		{"replay needs a replay op", unitPlan{oracle: "replay equivalence from the snapshot"}, Warning, FieldOracle, 9, "a :replay op"},
		{"oracle recovery without a time", unitPlan{oracle: "throughput recovers within 5 % of baseline"}, Error, FieldOracle, 9, `bounded-recovery (no bound: write "within N s")`},
		{"oracle txn on register", unitPlan{oracle: "serializable"}, Error, FieldOracle, 9, "needs a list-append or rw-register workload"},
		{"oracle linearizable on bank", unitPlan{workload: "bank", oracle: "linearizable"}, Error, FieldOracle, 9, "needs a register or cas-register workload"},
		{"budget", unitPlan{smoke: "3 nodes, 1 seed"}, Error, FieldBudgets, 10, "states no duration"},
		{"fault", unitPlan{faults: "disk stall of 5s"}, Error, FieldFaults, 8, `fault phrase "disk stall of 5s" is not in the vocabulary`},
		{"clock rate", unitPlan{faults: "time drift at rate 2"}, Error, FieldFaults, 8, `clock in "time drift at rate 2" cannot be injected as written: clock skew: rate 2`},
		{"netem without parameters", unitPlan{faults: "tc netem on one node"}, Error, FieldFaults, 8, "netem: give at least one of"},
		{"netem loss", unitPlan{faults: "netem loss on one node"}, Warning, FieldFaults, 8, "netem loss in \"netem loss on one node\" states no percentage"},
		{"fault target", unitPlan{faults: "kill -9 at T+10s"}, Error, FieldFaults, 8, "names no target"},
		{"loss", unitPlan{faults: "packet loss on the leader"}, Warning, FieldFaults, 8, "states no percentage"},
		{"zero hold", unitPlan{faults: "minority partition at T+10s for 0s"}, Error, FieldFaults, 8, `duration "for 0s" in "minority partition at T+10s for 0s" is zero or negative`},
		{"zero recovery bound", unitPlan{oracle: "writes resume within 0 s of each kill"}, Error, FieldOracle, 9, `the bound "within 0 s" is zero or negative`},
		{"negative interval", unitPlan{faults: "minority partition at T+10s for 5s; repeat every -5s"}, Error, FieldFaults, 8, `duration "every -5s"`},
		{"evidence", unitPlan{faults: "minority partition", landing: "the dashboard turns red"}, Warning, FieldLanding, 14, "not in the vocabulary"},
		{"evidence no builtin", unitPlan{faults: "kill -9 of the leader", landing: "PID gone and a new leader"}, Warning, FieldLanding, 14, `"new leader" has no evidence.* builtin`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := compileUnit(t, tt.u)
			if len(ds) != 1 {
				t.Fatalf("want one diagnostic, got:\n%s", diagStrings(ds))
			}
			d := ds[0]
			if d.Severity != tt.sev || d.Field != tt.field || d.Pos.Line != tt.line || d.Scenario != "S1" ||
				!strings.Contains(d.Msg, tt.msg) || d.Fix == "" || d.Rule != "compile-unmapped" {
				t.Errorf("got %s (rule %s), want %s at line %d on %s containing %q", d, d.Rule, tt.sev, tt.line, tt.field, tt.msg)
			}
		})
	}
}

// TestCompileTier checks --tier emits one tier and insists on it.
func TestCompileTier(t *testing.T) {
	cs, ds := compileFile(t, filepath.Join("testdata", "etcd-register.md"), CompileOptions{Tier: "release", Suite: "../suite.star"})
	if !strings.Contains(cs[0].Source, `load("../suite.star", "suite")`) {
		t.Errorf("suite path not used:\n%s", cs[0].Source)
	}
	if strings.Contains(cs[0].Source, `"smoke"`) || !strings.Contains(cs[1].Source, `"release": budget(duration = "2h"`) {
		t.Errorf("tier filter not applied:\n%s\n%s", cs[0].Source, cs[1].Source)
	}
	if !strings.Contains(diagStrings(ds), "etcd-register.md:113: [S1 Budgets] the release budget is not provided") {
		t.Errorf("missing not-provided error:\n%s", diagStrings(ds))
	}
}

// FuzzCompile checks no plan text makes Compile panic or emit Starlark that
// does not parse.
func FuzzCompile(f *testing.F) {
	f.Add(unitPlan{}.source())
	f.Add(string(readFile(f, filepath.Join("testdata", "etcd-register.md"))))
	f.Add(unitPlan{workload: "cas-register over 3 keys, 9 ops/s", faults: "kill -9 of the leader for 1s; every 2s",
		extra: "```starlark\nworkload = x\n```\n"}.source())
	f.Add("# Test Plan: t\r\n\n## 7. Scenarios\n\n### Scenario S1: un\x00it\r\n\n- **Workload:** register\r\n- **Oracle:** linearizable\x00\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, _ := Parse("fuzz.md", []byte(src))
		cs, ds := Compile(p, CompileOptions{Source: []byte(src)})
		for _, c := range cs {
			if _, err := dialect.Options.Parse(c.File, c.Source, 0); err != nil && !unparsableReported(ds, c.ID) {
				// The author's own Starlark may be anything, but compile
				// must then say so: it never writes a file that cannot load.
				t.Fatalf("%s does not parse and compile said nothing: %v\n%s", c.File, err, c.Source)
			} else if err != nil && !authored(c) {
				t.Fatalf("generated %s does not parse: %v\n%s", c.File, err, c.Source)
			}
		}
	})
}

// authored reports whether c carries a ```starlark block of the plan.
func authored(c CompiledScenario) bool {
	for _, m := range c.Mapped {
		if m.Field == "starlark" {
			return true
		}
	}
	return false
}

// BenchmarkCompile measures compiling the etcd example plan (parse excluded).
func BenchmarkCompile(b *testing.B) {
	path := filepath.Join("testdata", "etcd-register.md")
	src := readFile(b, path)
	p, _ := Parse(path, src)
	o := CompileOptions{Source: src}
	b.ReportAllocs()
	for b.Loop() {
		Compile(p, o)
	}
}

// No-lost-ack on a register workload gets a final dump of every key after
// the heal; other oracles and workloads get no final phase, and a
// ```starlark final = ... block replaces it.
func TestCompileFinal(t *testing.T) {
	const dump = "final = final_dump(),"
	const load = `load("@stdlib//workloads.star", "cas_register", "final_dump")`
	tests := []struct {
		name string
		u    unitPlan
		want bool   // final_dump() emitted and loaded
		diag string // the one diagnostic expected, if any
	}{
		{"cas-register over keys", unitPlan{workload: "cas-register over 8 keys", oracle: "per-key linearizability plus no-lost-ack"}, true, ""},
		{"single register", unitPlan{workload: "register", oracle: "no-lost-ack"}, true, ""},
		{"cas-register", unitPlan{workload: "cas-register", oracle: "no-lost-ack"}, true, ""},
		{"no no-lost-ack", unitPlan{workload: "cas-register", oracle: "linearizable"}, false, ""},
		{"not a register", unitPlan{workload: "set workload", oracle: "set-full checker plus no-lost-ack"}, false,
			"no-lost-ack needs a final read of the state, which the compiler can add only for register or cas-register workloads, not set"},
		{"override", unitPlan{workload: "cas-register", oracle: "no-lost-ack",
			extra: "\n```starlark\nfinal = gen.once({\"f\": \"dump\", \"value\": [1]})\n```\n"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ds := compileUnit(t, tt.u)
			switch {
			case tt.diag == "" && len(ds) != 0:
				t.Errorf("unexpected diagnostics:\n%s", diagStrings(ds))
			case tt.diag != "" && (len(ds) != 1 || ds[0].Severity != Warning || !strings.Contains(ds[0].Msg, tt.diag)):
				t.Errorf("diagnostics:\n%s\nwant one warning: %s", diagStrings(ds), tt.diag)
			}
			got := strings.Contains(c.Source, dump)
			if got != tt.want || strings.Contains(c.Source, `"final_dump"`) != tt.want {
				t.Fatalf("final_dump() emitted and loaded = %v, want %v:\n%s", got, tt.want, c.Source)
			}
			if !tt.want {
				return
			}
			if strings.Contains(tt.u.workload, "cas-register") {
				wantIn(t, c, load)
			}
			wantIn(t, c, "# Oracle (plan line 9): ", "# no-lost-ack needs the final state")
			// final comes after the checker and before the budgets.
			if i, j, k := strings.Index(c.Source, "checker = "), strings.Index(c.Source, dump), strings.Index(c.Source, "budgets = "); i > j || j > k {
				t.Errorf("final = is out of place:\n%s", c.Source)
			}
		})
	}
	c, _ := compileUnit(t, tests[len(tests)-1].u)
	wantIn(t, c, `final = gen.once({"f": "dump", "value": [1]}),`)
}

// unparsableReported says whether ds holds the compile-unparsable error of id.
func unparsableReported(ds []Diagnostic, id string) bool {
	for _, d := range ds {
		if d.Rule == "compile-unparsable" && d.Scenario == id && d.Severity == Error {
			return true
		}
	}
	return false
}

// TestCompileHostileText: text from a plan (its file name, a heading, field
// values with newlines, \r or NUL) never becomes Starlark code, and what
// compile writes parses — or compile fails naming the scenario.
func TestCompileHostileText(t *testing.T) {
	src := unitPlan{workload: "register\r", oracle: "linearizable\x00 and $(touch /tmp/pwned)"}.source()
	src = strings.Replace(src, "### Scenario S1: unit", "### Scenario S1: un\rit\x00 \u2028x", 1)
	for _, name := range []string{"plan.md", "evil\nfail(\"pwned\")\n.md", "q\"uote's\r.md"} {
		p, _ := Parse(name, []byte(src))
		cs, ds := Compile(p, CompileOptions{Source: []byte(src)})
		if len(cs) != 1 {
			t.Fatalf("%q: compiled %d scenarios", name, len(cs))
		}
		c := cs[0]
		if _, err := dialect.Options.Parse(c.File, c.Source, 0); err != nil {
			t.Fatalf("%q: does not parse: %v\n%s", name, err, c.Source)
		}
		for i, line := range strings.Split(c.Source, "\n") {
			if strings.Contains(line, "fail(") && !strings.HasPrefix(strings.TrimSpace(line), "#") {
				t.Errorf("%q: line %d runs plan text: %s", name, i+1, line)
			}
		}
		if unparsableReported(ds, "S1") {
			t.Errorf("%q: reported unparsable although it parses", name)
		}
	}
	// An author's block that is not Starlark fails compile, naming S1.
	bad := unitPlan{extra: "```starlark\nworkload = (\n```\n"}.source()
	p, _ := Parse("plan.md", []byte(bad))
	if _, ds := Compile(p, CompileOptions{Source: []byte(bad)}); !unparsableReported(ds, "S1") {
		t.Errorf("an unparsable ```starlark block compiled without an error: %v", diagStrings(ds))
	}
}

// Declared landing evidence applies to every nemesis (issue 27 item 7): a
// nemesis from a ```starlark block gets the §7.M landing field's evidence,
// and a block that replaces the whole scenario without a landing of its own
// is an error at the block, naming what to add.
func TestCompileLandingWithBlockNemesis(t *testing.T) {
	skew := "\n```starlark\nnemesis = skew(nodes = \"one\", interval = \"2s\", hold = \"2s\")\n```\n"
	c, ds := compileUnit(t, unitPlan{faults: "clock skew by libfaketime on one node", landing: "clients see timeouts during the fault window", extra: skew})
	wantIn(t, c, "nemesis = skew(", "landing = [evidence.op_errors(during_fault = True)],")
	for _, d := range ds {
		if d.Rule == "landing-dropped" {
			t.Errorf("a field override dropped nothing: %s", d)
		}
	}

	// No landing field: nothing declared, nothing to attach, no default.
	c, _ = compileUnit(t, unitPlan{faults: "clock skew by libfaketime", extra: skew})
	if strings.Contains(c.Source, "landing =") {
		t.Errorf("landing without a declaration:\n%s", c.Source)
	}

	whole := "\n```starlark\nload(\"x.star\", \"s\")\n\nscenario(name = \"S1\", client = s.client, workload = s.w, checker = s.c, nemesis = s.n)\n```\n"
	for _, tc := range []struct {
		name  string
		u     unitPlan
		fires bool
	}{
		{"whole block without landing", unitPlan{landing: "DROP counters rise", extra: whole}, true},
		{"whole block with landing", unitPlan{landing: "DROP counters rise", extra: strings.Replace(whole, "nemesis = s.n", "nemesis = s.n, landing = [evidence.landed()]", 1)}, false},
		{"whole block, nothing declared", unitPlan{extra: whole}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.u.source())
			p, _ := Parse("plan.md", src)
			_, cds := Compile(p, CompileOptions{Source: src})
			for name, ds := range map[string][]Diagnostic{"compile": cds, "lint": lint(p, src)} {
				var hit *Diagnostic
				for i := range ds {
					if ds[i].Rule == "landing-dropped" {
						hit = &ds[i]
					}
				}
				switch {
				case hit == nil && tc.fires:
					t.Errorf("%s: landing-dropped did not fire:\n%s", name, diagStrings(ds))
				case hit != nil && !tc.fires:
					t.Errorf("%s: landing-dropped fired: %s", name, hit)
				case hit != nil && (hit.Severity != Error || !strings.Contains(hit.Fix, "landing = [evidence.iptables_drops(min = 1)]") || !strings.Contains(hit.Msg, "DROP counters rise")):
					t.Errorf("%s: %s", name, hit)
				}
			}
		})
	}
}
