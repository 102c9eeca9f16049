package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/faultline/faultline/verdict"
)

// sixFaults is a decision whose six faults all miss the same signal, and
// whose red flags would also be open: the shape that used to put the same
// reason six times into one table cell.
func sixFaults() verdict.Decision {
	e := verdict.Evidence{Scenario: "S1", Attempted: true, Run: verdict.Run{Nodes: 3, Seeds: 1, Ops: 1200, OK: 1100}}
	e.Oracle = verdict.Oracle{Name: "linearizable", Outcome: verdict.Valid, Consumed: 1100, Dropped: 100, Keys: 8}
	for _, n := range []string{"kill n1", "kill n2", "kill n3", "pause n1", "pause n2", "pause n3"} {
		e.Faults = append(e.Faults, verdict.Fault{Name: n, Injector: verdict.Yes("ok"), Victim: verdict.No("did not show the fault in effect")})
	}
	return verdict.Decide(e)
}

// TestWhyLines: the terminal's why is one line no wider than asked, the
// most decisive reason with a count of the rest, then one line of fix; a
// reason is never repeated.
func TestWhyLines(t *testing.T) {
	partial := decision("S1", true, verdict.Valid) // RF5, RF6, RF7 open
	tests := []struct {
		name          string
		d             verdict.Decision
		why, fix      string // substrings
		noFix         bool
		width, repeat int
	}{
		{"gated", partial, "RF6 Duration met the claimed tier: claims smoke", "fix: declare a smoke budget", false, 100, 0},
		{"narrow", partial, "(+2 more, see findings)", "fix: declare", false, 60, 0},
		{"six faults once", sixFaults(), "6 faults not proven", "fix: make the fault hit", false, 100, 0},
		{"not run", decision("S2", false, ""), "NOT-RUN: not attempted: release-gated", "fix: run the scenario", false, 100, 0},
		{"fail has no fix", decision("S3", true, verdict.Invalid), "oracle violation", "", true, 100, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why, fix := WhyLines(tt.d, tt.width)
			for _, l := range []string{why, fix} {
				if strings.Contains(l, "\n") || utf8.RuneCountInString(l) > tt.width {
					t.Errorf("line %q: more than one line or wider than %d", l, tt.width)
				}
			}
			if !strings.Contains(why, tt.why) {
				t.Errorf("why %q, want %q in it", why, tt.why)
			}
			if tt.noFix != (fix == "") || !strings.Contains(fix, tt.fix) {
				t.Errorf("fix %q, want %q in it", fix, tt.fix)
			}
			if n := strings.Count(why, "did not show the fault in effect"); n > 1 {
				t.Errorf("why repeats the reason %d times: %q", n, why)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 40, "short"},
		{"the quick brown fox jumps over the lazy dog again and again", 30, "the quick brown fox jumps…"},
		{strings.Repeat("x", 50), 30, strings.Repeat("x", 29) + "…"},
		{"too narrow to cut", 5, "too narrow to cut"},
	}
	for _, tt := range tests {
		if got := Truncate(tt.in, tt.width); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

// TestHeadline: the terminal's session line counts, and does not repeat the
// table's reasons; BLOCKED keeps its reason, which may be in no row.
func TestHeadline(t *testing.T) {
	units := UnitResults([]Unit{{ID: "S1", Decision: decision("S1", true, verdict.Valid)}, {ID: "S2", Decision: decision("S2", false, "")}})
	sv, long := verdict.Session(verdict.SessionEvidence{Scenarios: []verdict.ScenarioResult{{Decision: units[0].Decision}, {Decision: units[1].Decision}}})
	got := Headline(sv, long, units)
	if got != "no violation found; 0 of 2 units passed; why and fix in the table above" {
		t.Errorf("headline %q", got)
	}
	if strings.Contains(got, "red flag") || strings.Contains(got, "release-gated") {
		t.Errorf("headline repeats the table: %q", got)
	}
	if got := Headline(verdict.Blocked, "BLOCKED: plan not loaded: x.md:3: bad", nil); got != "plan not loaded: x.md:3: bad" {
		t.Errorf("blocked headline %q", got)
	}
	if units[0].Fix == "" || units[0].Fix != units[0].Decision.Blockers[0].Fix {
		t.Errorf("results.json unit fix %q, want the first blocker's", units[0].Fix)
	}
}

// TestRenderUnitShowsEachGateOnce: findings/<ID>.md gives each open gate
// once under Why, reason then fix with its docs section, and the
// green-but-broken list points there instead of repeating it.
func TestRenderUnitShowsEachGateOnce(t *testing.T) {
	d := decision("S1", true, verdict.Valid)
	got := RenderUnit(Unit{ID: "S1", Decision: d})
	for _, b := range d.Blockers {
		head := "**" + b.Gate + " " + b.Title + "** (" + string(b.Status) + "): " + b.Reason
		if n := strings.Count(got, head); n != 1 {
			t.Errorf("%q written %d times:\n%s", head, n, got)
		}
		if !strings.Contains(got, "- [ ] "+b.Gate+" "+b.Title+" — "+string(b.Status)+": see Why\n") {
			t.Errorf("%s: the checklist does not point at Why:\n%s", b.Gate, got)
		}
		if !strings.Contains(got, "fix: "+b.Fix+" (see "+verdict.DocAnchor(b.Gate)+")") {
			t.Errorf("%s fix missing:\n%s", b.Gate, got)
		}
	}
	if strings.Contains(got, "red flag open, not a PASS") {
		t.Errorf("the gate's summary line repeats the blockers:\n%s", got)
	}
}
