package session

import (
	"testing"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/interp"
)

// TestEvidenceDurationIsTheSchedules: the time the nemesis spent applying
// faults, by which the load ran past its budget, does not count toward a
// tier's duration.
func TestEvidenceDurationIsTheSchedules(t *testing.T) {
	for _, tt := range []struct {
		wall, nemesis, want time.Duration
	}{
		{90 * time.Second, 0, 90 * time.Second},
		{290 * time.Second, 200 * time.Second, 90 * time.Second},
		{time.Second, 2 * time.Second, 0},
	} {
		r := &interp.Result{Summary: gen.Summary{Duration: tt.wall, NemesisTime: tt.nemesis}, Scale: 1}
		if got := evidenceOf(unitSpec{ID: "S1"}, r, 3).Run.Duration; got != tt.want {
			t.Errorf("wall %s with %s in nemesis steps: duration %s, want %s", tt.wall, tt.nemesis, got, tt.want)
		}
	}
}
