package verdict

import (
	"encoding/json"
	"testing"
)

// TestDecisionGolden pins the JSON a session stores for a verdict (results.json
// keeps the evidence beside the decision it produced): field names, audit
// order and the wording of reasons and evidence.
func TestDecisionGolden(t *testing.T) {
	notProven := hardening()
	notProven.Scenario = "S3"
	notProven.Faults[1].Victim = No("DROP counter stayed 0: rule on the wrong chain")
	notProven.Logs = LogScan{}
	type record struct {
		Evidence Evidence `json:"evidence"`
		Decision Decision `json:"decision"`
	}
	var recs []record
	for _, e := range []Evidence{hardening(), notProven} {
		recs = append(recs, record{e, Decide(e)})
	}
	got, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "decisions.golden.json", append(got, '\n'))
}
