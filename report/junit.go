package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/faultline/faultline/verdict"
)

// JUnit element types. They are exported so a CI tool or a test can read the
// file back with xml.Unmarshal into the same shape WriteJUnit writes.

// JUnitSuite is the single <testsuite> WriteJUnit writes.
type JUnitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []JUnitCase `xml:"testcase"`
}

// JUnitCase is one unit's <testcase>; at most one of Failure, Error and
// Skipped is set, and none for a pass.
type JUnitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
	Skipped   *JUnitProblem `xml:"skipped,omitempty"`
}

// JUnitProblem is the body of a <failure>, <error> or <skipped> element.
type JUnitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// Outcome is how a verdict shows in JUnit.
type Outcome int

// JUnit outcomes. Anything not a definite PASS must not show green in CI, so
// only OutcomePass produces a bare <testcase>.
const (
	OutcomePass Outcome = iota
	OutcomeFailure
	OutcomeError
	OutcomeSkipped
)

// JUnitOutcome maps a verdict to its JUnit outcome: PASS-* pass, FAIL-*
// fail, NOT-RUN is skipped, and everything else — INCONCLUSIVE-*, PARTIAL-*
// and any unrecognised spelling — is an error so CI never shows it green.
func JUnitOutcome(v verdict.Verdict) Outcome {
	switch {
	case v.IsPass():
		return OutcomePass
	case v.IsFail():
		return OutcomeFailure
	case v == verdict.NotRun:
		return OutcomeSkipped
	}
	return OutcomeError
}

// WriteJUnit writes units as one JUnit <testsuite> named suite (the plan
// slug, also each case's classname) with elapsed as the suite's time.
func WriteJUnit(w io.Writer, suite string, units []Unit, elapsed time.Duration) error {
	s := JUnitSuite{Name: suite, Tests: len(units), Time: fmt.Sprintf("%.3f", elapsed.Seconds()),
		Cases: make([]JUnitCase, 0, len(units))}
	for i := range units {
		c := junitCase(suite, &units[i])
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Error != nil:
			s.Errors++
		case c.Skipped != nil:
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write junit header: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("write junit suite %q: %w", suite, err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write junit trailer: %w", err)
	}
	return nil
}

// junitCase builds one unit's <testcase>.
func junitCase(suite string, u *Unit) JUnitCase {
	d := &u.Decision
	c := JUnitCase{Classname: suite, Name: caseName(u)}
	message := string(d.Verdict)
	if len(d.Reasons) > 0 {
		message += ": " + oneLine(d.Reasons[0])
	}
	switch JUnitOutcome(d.Verdict) {
	case OutcomeFailure:
		c.Failure = &JUnitProblem{Message: message, Type: string(d.Verdict), Text: problemText(d, true)}
	case OutcomeError:
		c.Error = &JUnitProblem{Message: message, Type: "VERDICT", Text: problemText(d, false)}
	case OutcomeSkipped:
		c.Skipped = &JUnitProblem{Message: message}
	}
	return c
}

// caseName is the unit ID, with the decision's scenario when it says more
// (an aggregate row is marked so it is not mistaken for an arm).
func caseName(u *Unit) string {
	name := u.ID
	if s := u.Decision.Scenario; s != "" && s != u.ID {
		name += " " + s
	}
	if u.Aggregate {
		name += " (aggregate)"
	}
	return name
}

// problemText is the element body: the verdict's reasons, one a line, then
// the oracle evidence (and for a failure the nemesis landing evidence that
// makes it reproducible), so the CI page alone explains the red.
func problemText(d *verdict.Decision, landing bool) string {
	var b strings.Builder
	for _, r := range d.Reasons {
		fmt.Fprintf(&b, "- %s\n", oneLine(r))
	}
	if d.Oracle != "" {
		fmt.Fprintf(&b, "oracle: %s\n", oneLine(d.Oracle))
	}
	if landing && d.Landing != "" {
		fmt.Fprintf(&b, "nemesis landing: %s\n", oneLine(d.Landing))
	}
	return b.String()
}
