package verdict

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTierMet(t *testing.T) {
	smokeReq := TierRequirement{Nodes: 3, Duration: 2 * time.Minute, Ops: 2_000, Seeds: 1}
	hardReq := TierRequirement{Nodes: 5, Duration: 10 * time.Minute, Ops: 20_000, Faults: 4, Seeds: 3, Repetitions: 3}
	relReq := TierRequirement{Nodes: 5, Duration: 24 * time.Hour, Ops: 1_000_000, Faults: 50, Seeds: 10}
	all := map[Tier]TierRequirement{TierSmoke: smokeReq, TierHardening: hardReq, TierRelease: relReq}
	hardRun := Measured{Nodes: 5, Duration: 11 * time.Minute, Ops: 25_000, Faults: 4, Seeds: 3, Repetitions: 3}
	tests := []struct {
		name  string
		req   map[Tier]TierRequirement
		m     Measured
		want  Tier
		notes []string
	}{
		{"nothing declared", nil, hardRun, TierNone, []string{"no budget tier declared"}},
		{"nothing met", all, Measured{Nodes: 3}, TierNone, []string{"smoke tier not met: duration 0s < 2m0s, ops 0 < 2000, seeds 0 < 1", "hardening tier not met"}},
		{"smoke only", all, Measured{Nodes: 3, Duration: 3 * time.Minute, Ops: 2_000, Seeds: 1}, TierSmoke, []string{"smoke tier met", "hardening tier not met: nodes 3 < 5, duration 3m0s < 10m0s, ops 2000 < 20000, faults landed 0 < 4, seeds 1 < 3, repetitions 0 < 3"}},
		{"hardening", all, hardRun, TierHardening, []string{"smoke tier met", "hardening tier met", "release tier not met: duration 11m0s < 24h0m0s, ops 25000 < 1000000, faults landed 4 < 50, seeds 3 < 10"}},
		{"release", all, Measured{Nodes: 5, Duration: 25 * time.Hour, Ops: 2_000_000, Faults: 60, Seeds: 10, Repetitions: 10}, TierRelease, []string{"release tier met"}},
		{"exactly at the floors", all, Measured{Nodes: 5, Duration: 10 * time.Minute, Ops: 20_000, Faults: 4, Seeds: 3, Repetitions: 3}, TierHardening, nil},
		{"one fault short", all, Measured{Nodes: 5, Duration: 10 * time.Minute, Ops: 20_000, Faults: 3, Seeds: 3, Repetitions: 3}, TierSmoke, []string{"faults landed 3 < 4"}},
		{"cumulative: hardening floors without smoke's", map[Tier]TierRequirement{TierSmoke: {Ops: 5_000}, TierHardening: {Faults: 1}},
			Measured{Ops: 1_000, Faults: 1}, TierNone, []string{"hardening tier's floors reached, but a weaker tier was not met"}},
		{"undeclared smoke is skipped", map[Tier]TierRequirement{TierHardening: hardReq}, hardRun, TierHardening, []string{"hardening tier met"}},
		{"release disclosed, not declared", map[Tier]TierRequirement{TierSmoke: smokeReq, TierHardening: hardReq}, Measured{Nodes: 9, Duration: 48 * time.Hour, Ops: 1e7, Faults: 99, Seeds: 99, Repetitions: 99}, TierHardening, nil},
		{"zero requirement is met by anything", map[Tier]TierRequirement{TierSmoke: {}}, Measured{}, TierSmoke, []string{"smoke tier met"}},
		{"slow nodes: the op floor divided by their scale", map[Tier]TierRequirement{TierSmoke: smokeReq},
			Measured{Nodes: 3, Duration: 3 * time.Minute, Ops: 200, Seeds: 1, Scale: 10}, TierSmoke, []string{"smoke tier met"}},
		{"slow nodes: short of the scaled floor, said so", map[Tier]TierRequirement{TierSmoke: smokeReq},
			Measured{Nodes: 3, Duration: 3 * time.Minute, Ops: 199, Seeds: 1, Scale: 10}, TierNone,
			[]string{"ops 199 < 200 (2000 for nodes as fast as the controller; these ran 10x slower)"}},
		{"slow nodes: other floors unscaled", map[Tier]TierRequirement{TierSmoke: smokeReq},
			Measured{Nodes: 3, Duration: time.Minute, Ops: 200, Seeds: 1, Scale: 10}, TierNone, []string{"duration 1m0s < 2m0s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := TierMet(tt.req, tt.m)
			if got != tt.want {
				t.Errorf("tier %s, want %s (notes %q)", got, tt.want, notes)
			}
			joined := strings.Join(notes, "\n")
			for _, n := range tt.notes {
				if !strings.Contains(joined, n) {
					t.Errorf("notes lack %q:\n%s", n, joined)
				}
			}
		})
	}
}

func TestTierAtLeast(t *testing.T) {
	order := []Tier{TierNone, TierSmoke, TierHardening, TierRelease}
	for i, a := range order {
		for j, b := range order {
			if got := a.AtLeast(b); got != (i >= j) {
				t.Errorf("%s.AtLeast(%s) = %v", a, b, got)
			}
		}
	}
	if Tier("gold").AtLeast(TierSmoke) {
		t.Error("an unknown tier must rank below smoke")
	}
}

func TestTiers(t *testing.T) {
	want := []Tier{TierSmoke, TierHardening, TierRelease}
	if got := slices.Collect(Tiers()); !slices.Equal(got, want) {
		t.Errorf("Tiers() = %v, want %v weakest first", got, want)
	}
}

func TestScaledFloor(t *testing.T) {
	for _, tt := range []struct {
		ops   int64
		scale float64
		want  int64
	}{{1000, 0, 1000}, {1000, 1, 1000}, {1000, 0.5, 1000}, {1000, 10, 100}, {1000, 3, 334}, {0, 10, 0}, {1, 10, 1}} {
		if got := ScaledFloor(tt.ops, tt.scale); got != tt.want {
			t.Errorf("ScaledFloor(%d, %g) = %d, want %d", tt.ops, tt.scale, got, tt.want)
		}
	}
}
