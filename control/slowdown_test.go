package control

import (
	"strings"
	"testing"
	"time"
)

func TestParseNodesFileSlowdown(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       float64
		ok         bool
		err        string
	}{
		{"vm cluster", "# faultline VM cluster\n# faultline: slowdown=8.25\nn1=10.90.0.11:22\n", 8.25, true, ""},
		{"netns cluster", "# faultline cluster \"fl\"\nn1=10.77.0.11:22\n", 0, false, ""},
		{"indented", "  # faultline: slowdown=2\n", 2, true, ""},
		{"not a number", "n1=a:22\n# faultline: slowdown=fast\n", 0, false, "f:2: slowdown \"fast\""},
		{"faster than the host", "# faultline: slowdown=0.5\n", 0, false, "from 1 to 10000"},
	} {
		got, ok, err := ParseNodesFileSlowdown(strings.NewReader(tc.text), "f")
		if got != tc.want || ok != tc.ok || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v %v %v, want %v %v %q", tc.name, got, ok, err, tc.want, tc.ok, tc.err)
		}
	}
	// The directive is a comment to the nodes parser.
	nodes, err := ParseNodesFile(strings.NewReader("# faultline: slowdown=8.25\nn1=10.90.0.11:22\n"), "f")
	if err != nil || len(nodes) != 1 {
		t.Errorf("nodes file with a slowdown line: %v, %v", nodes, err)
	}
}

func TestScaleTimeout(t *testing.T) {
	var none *Pool
	for _, tc := range []struct {
		name     string
		slowdown float64
		pool     bool
		in, want time.Duration
	}{
		{"nil pool", 0, false, 5 * time.Second, 5 * time.Second},
		{"not measured", 0, true, 5 * time.Second, 5 * time.Second},
		{"8x", 8, true, 5 * time.Second, 40 * time.Second},
		{"capped", 48, true, 5 * time.Second, 50 * time.Second},
		{"zero stays zero", 8, true, 0, 0},
	} {
		p := none
		if tc.pool {
			p = &Pool{}
			p.SetSlowdown(tc.slowdown)
		}
		if got := p.ScaleTimeout(tc.in); got != tc.want {
			t.Errorf("%s: ScaleTimeout(%s) = %s, want %s", tc.name, tc.in, got, tc.want)
		}
	}
}
