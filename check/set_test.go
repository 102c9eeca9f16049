package check

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// verdictCase is one small history with the verdict a checker must reach and
// text its summary or explanation must contain.
type verdictCase struct {
	name    string
	lines   []string
	want    Validity
	ops     int    // Consumed.Ops
	mention string // in Summary + Explanation
}

// runVerdicts checks every case with c. Lines starting with "{" are EDN op
// maps (for keys and extra fields), the others Jepsen log lines.
func runVerdicts(t *testing.T, c Checker, cases []verdictCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var h []history.Op
			if len(tt.lines) > 0 && strings.HasPrefix(tt.lines[0], "{") {
				h = testhist.EDN(t, tt.lines...)
			} else {
				h = testhist.JepsenLog(t, tt.lines...)
			}
			r := run(t, c, h)
			if r.Valid != tt.want {
				t.Errorf("verdict %s, want %s\n%s\n%s", r.Valid, tt.want, r.Summary, r.Explanation)
			}
			if r.Consumed.Ops != tt.ops {
				t.Errorf("consumed %d ops, want %d", r.Consumed.Ops, tt.ops)
			}
			if text := r.Summary + "\n" + r.Explanation; !strings.Contains(text, tt.mention) {
				t.Errorf("result does not mention %q:\n%s", tt.mention, text)
			}
			if r.Checker != c.Name() || len(r.BlindSpots) == 0 {
				t.Errorf("checker %q, blind spots %q", r.Checker, r.BlindSpots)
			}
		})
	}
}

func TestSet(t *testing.T) {
	runVerdicts(t, Set(), []verdictCase{
		{"all present", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "1 :invoke :add 2", "1 :ok :add 2",
			"0 :invoke :read nil", "0 :ok :read #{1 2}",
		}, Valid, 3, "2 ok, 0 lost"},
		{"lost ack", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "1 :invoke :add 2", "1 :ok :add 2",
			"0 :invoke :read nil", "0 :ok :read [1]",
		}, Invalid, 3, "Lost: 1 acknowledged adds"},
		{"unexpected and failed add", []string{
			"0 :invoke :add 1", "0 :fail :add 1", "0 :invoke :read nil", "0 :ok :read [1 7]",
		}, Invalid, 2, "Unexpected: the final read holds 2 elements nobody added"},
		{"info add may or may not have happened", []string{
			"0 :invoke :add 1", "0 :info :add 1", "1 :invoke :add 2", "1 :info :add 2",
			"2 :invoke :add 3", "2 :ok :add 3", "2 :invoke :read nil", "2 :ok :read [2 3]",
		}, Valid, 4, "1 recovered"},
		{"never read", []string{"0 :invoke :add 1", "0 :ok :add 1", "0 :invoke :read nil", "0 :info :read nil"},
			Unknown, 1, "never read"},
		{"add concurrent with final read is not judged", []string{
			"0 :invoke :read nil", "1 :invoke :add 1", "1 :ok :add 1", "0 :ok :read []",
		}, Valid, 2, "Not judged: 1"},
		{"duplicated element in the final read", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "1 :invoke :add 2", "1 :ok :add 2",
			"0 :invoke :read nil", "0 :ok :read [1 2 1 2.0]",
		}, Invalid, 3, "Duplicated: the final read holds 2 elements more than once"},
		{"a duplicate in an earlier read is not judged", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "0 :invoke :read nil", "0 :ok :read [1 1]",
			"0 :invoke :read nil", "0 :ok :read [1]",
		}, Valid, 3, "0 duplicated"},
		{"no set ops", []string{"0 :invoke :write 1", "0 :ok :write 1"}, Unknown, 0, "nothing to check"},
		{"malformed read", []string{"0 :invoke :read nil", "0 :ok :read 3"}, Unknown, 0, "returns a collection"},
	})
}

func TestSetFull(t *testing.T) {
	runVerdicts(t, SetFull(SetFullOptions{}), []verdictCase{
		{"stable", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "0 :invoke :read nil", "0 :ok :read [1]",
			"0 :invoke :read nil", "0 :ok :read [1]",
		}, Valid, 3, "1 stable, 0 lost"},
		{"lost after being seen", []string{
			"0 :invoke :add 1", "0 :info :add 1", "1 :invoke :read nil", "1 :ok :read [1]",
			"1 :invoke :read nil", "1 :ok :read []",
		}, Invalid, 3, "Lost: 1 elements"},
		{"stale read allowed by default", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "1 :invoke :read nil", "1 :ok :read []",
			"1 :invoke :read nil", "1 :ok :read [1]",
		}, Valid, 3, "1 stale"},
		{"unconfirmed info add is not lost", []string{
			"0 :invoke :add 1", "0 :info :add 1", "1 :invoke :add 2", "1 :ok :add 2",
			"1 :invoke :read nil", "1 :ok :read [2]",
		}, Valid, 3, "1 stable, 0 lost"},
		{"never read", []string{"0 :invoke :add 1", "0 :ok :add 1"}, Unknown, 1, "1 never read"},
		{"unexpected", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "0 :invoke :read nil", "0 :ok :read [1 9]",
		}, Invalid, 2, "Unexpected: reads show 1 elements"},
		{"duplicated element", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "0 :invoke :read nil", "0 :ok :read [1]",
			"0 :invoke :read nil", "0 :ok :read [1 1]",
		}, Invalid, 3, "Duplicated: 1 reads hold an element more than once (first: op 5)"},
		{"duplicated in an earlier read", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "0 :invoke :read nil", "0 :ok :read [1 1]",
			"0 :invoke :read nil", "0 :ok :read [1]",
		}, Invalid, 3, "Duplicated: 1 reads hold an element more than once (first: op 3)"},
	})
	runVerdicts(t, SetFull(SetFullOptions{Linearizable: true}), []verdictCase{
		{"stale read invalid when linearizable", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "1 :invoke :read nil", "1 :ok :read []",
			"1 :invoke :read nil", "1 :ok :read [1]",
		}, Invalid, 3, "Stale: 1 reads"},
	})
}
