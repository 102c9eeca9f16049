package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/verdict"
)

// TestJUnitOutcome pins the verdict → JUnit mapping: only a PASS is green.
func TestJUnitOutcome(t *testing.T) {
	tests := []struct {
		v    verdict.Verdict
		want Outcome
	}{
		{verdict.PassSmoke, OutcomePass},
		{verdict.PassHardening, OutcomePass},
		{verdict.FailReproducible, OutcomeFailure},
		{verdict.FailNondeterministic, OutcomeFailure},
		{verdict.NotRun, OutcomeSkipped},
		{verdict.InconclusiveEnv, OutcomeError},
		{verdict.InconclusiveOracleTooWeak, OutcomeError},
		{verdict.InconclusiveFaultNotProven, OutcomeError},
		{verdict.PartialSurface, OutcomeError},
		{verdict.PartialModel, OutcomeError},
		{verdict.Verdict("PASS"), OutcomeError}, // unrecognised: never green
		{verdict.Verdict(""), OutcomeError},
	}
	seen := map[verdict.Verdict]bool{}
	for _, tt := range tests {
		seen[tt.v] = true
		if got := JUnitOutcome(tt.v); got != tt.want {
			t.Errorf("JUnitOutcome(%q) = %d, want %d", tt.v, got, tt.want)
		}
	}
	for _, v := range verdict.Verdicts {
		if !seen[v] {
			t.Errorf("verdict %s has no row in this table", v)
		}
	}
}

// junitUnits is one unit of every outcome, including an aggregate row.
func junitUnits() []Unit {
	d := func(id string, v verdict.Verdict, reasons ...string) verdict.Decision {
		return verdict.Decision{Scenario: id, Verdict: v, Reasons: reasons,
			Oracle: "linearizable(cas-register): 1100 ops, invalid at op 812", Landing: "partition landed at 4.1s"}
	}
	return []Unit{
		{ID: "S1", Decision: d("S1", verdict.PassHardening, "no anomaly; faults landed")},
		{ID: "S2", Decision: d("S2", verdict.FailReproducible, "stale read <under> partition", "re-run reproduced it")},
		{ID: "S3", Decision: d("S3", verdict.NotRun, "not attempted: release-gated")},
		{ID: "S4", Decision: d("S4", verdict.InconclusiveFaultNotProven, "partition never read back")},
		{ID: "S5/api", Decision: d("S5/api", verdict.PassSmoke, "no fault active")},
		{ID: "S5", Aggregate: true, Decision: d("S5", verdict.PartialSurface, "capped at PARTIAL-surface: not every arm passed")},
	}
}

func TestWriteJUnitGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, "etcd-register", junitUnits(), 92500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "etcd-register.junit.golden.xml", b.Bytes())
}

// TestWriteJUnitRoundTrip reads the output back and checks the counts and
// each case's element against the verdict it came from.
func TestWriteJUnitRoundTrip(t *testing.T) {
	units := junitUnits()
	var b bytes.Buffer
	if err := WriteJUnit(&b, "plan-slug", units, time.Second); err != nil {
		t.Fatal(err)
	}
	var s JUnitSuite
	if err := xml.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatalf("output is not valid XML: %v\n%s", err, b.String())
	}
	if s.Name != "plan-slug" || s.Tests != 6 || s.Failures != 1 || s.Errors != 2 || s.Skipped != 1 || s.Time != "1.000" {
		t.Fatalf("suite attributes %+v", s)
	}
	if len(s.Cases) != len(units) {
		t.Fatalf("%d cases, want %d", len(s.Cases), len(units))
	}
	for i, c := range s.Cases {
		u := units[i]
		if c.Classname != "plan-slug" || !strings.HasPrefix(c.Name, u.ID) {
			t.Errorf("case %d named %q/%q", i, c.Classname, c.Name)
		}
		got := map[Outcome]bool{OutcomeFailure: c.Failure != nil, OutcomeError: c.Error != nil, OutcomeSkipped: c.Skipped != nil}
		want := JUnitOutcome(u.Decision.Verdict)
		for o, present := range got {
			if present != (o == want) {
				t.Errorf("case %s (%s): element for outcome %d present=%v", u.ID, u.Decision.Verdict, o, present)
			}
		}
	}
	f := s.Cases[1].Failure
	if f.Message != "FAIL-reproducible: stale read <under> partition" || !strings.Contains(f.Text, "re-run reproduced it") ||
		!strings.Contains(f.Text, "oracle: linearizable") || !strings.Contains(f.Text, "nemesis landing:") {
		t.Errorf("failure element lost evidence: %+v", f)
	}
	if e := s.Cases[3].Error; e.Type != "VERDICT" || !strings.Contains(e.Text, "partition never read back") {
		t.Errorf("error element %+v", e)
	}
	if !strings.HasSuffix(s.Cases[5].Name, "(aggregate)") {
		t.Errorf("aggregate row named %q", s.Cases[5].Name)
	}
}

func TestWriteJUnitEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, "empty", nil, 0); err != nil {
		t.Fatal(err)
	}
	var s JUnitSuite
	if err := xml.Unmarshal(b.Bytes(), &s); err != nil || s.Tests != 0 || s.Name != "empty" {
		t.Fatalf("empty suite %+v, %v", s, err)
	}
}

// errWriter fails every write, to check errors come back wrapped.
type errWriter struct{}

var errBroken = errors.New("broken pipe")

func (errWriter) Write([]byte) (int, error) { return 0, errBroken }

func TestWriteJUnitWriteError(t *testing.T) {
	if err := WriteJUnit(errWriter{}, "x", junitUnits(), 0); !errors.Is(err, errBroken) {
		t.Fatalf("error %v, want wrapped %v", err, errBroken)
	}
}
