package verdict

import "testing"

// TestVerdictNames pins the contract spellings (plan spec §2.1, §2.5).
func TestVerdictNames(t *testing.T) {
	want := []string{"PASS-smoke", "PASS-hardening", "FAIL-reproducible", "FAIL-nondeterministic",
		"INCONCLUSIVE-env", "INCONCLUSIVE-oracle-too-weak", "INCONCLUSIVE-fault-not-proven",
		"PARTIAL-surface", "PARTIAL-model", "NOT-RUN"}
	if len(Verdicts) != len(want) {
		t.Fatalf("%d verdicts, want %d", len(Verdicts), len(want))
	}
	for i, v := range Verdicts {
		if string(v) != want[i] {
			t.Errorf("verdict %d = %q, want %q", i, v, want[i])
		}
	}
	sessions := map[SessionVerdict]string{Done: "DONE", DoneWithConcerns: "DONE_WITH_CONCERNS", Inconclusive: "INCONCLUSIVE", Fail: "FAIL", Blocked: "BLOCKED"}
	for v, s := range sessions {
		if string(v) != s {
			t.Errorf("session verdict %q, want %q", v, s)
		}
	}
}

// TestVerdictClasses checks each verdict belongs to exactly one class.
func TestVerdictClasses(t *testing.T) {
	for _, v := range Verdicts {
		n := 0
		for _, in := range []bool{v.IsPass(), v.IsFail(), v.IsInconclusive(), v.IsPartial(), v == NotRun} {
			if in {
				n++
			}
		}
		if n != 1 || !v.Known() {
			t.Errorf("%s is in %d classes (known %v)", v, n, v.Known())
		}
	}
	for _, v := range []Verdict{"", "PASS", "INCONCLUSIVE-", "INCONCLUSIVE-other", "pass-smoke"} {
		if v.Known() || v.IsPass() || v.IsFail() || v.IsInconclusive() || v.IsPartial() {
			t.Errorf("%q is recognised", v)
		}
	}
}

// TestExitCode pins the CLI contract's exit statuses.
func TestExitCode(t *testing.T) {
	for v, want := range map[SessionVerdict]int{Done: 0, Fail: 1, Inconclusive: 2, DoneWithConcerns: 2, Blocked: 3, "": 2, "OK": 2} {
		if got := v.ExitCode(); got != want {
			t.Errorf("%q.ExitCode() = %d, want %d", v, got, want)
		}
	}
}
