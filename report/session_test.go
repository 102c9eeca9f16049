package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSlug(t *testing.T) {
	cases := map[string]string{
		"examples/scenarios/Stale Register.star": "stale-register",
		"plan.md":                                "plan",
		"/x/y/kv_ack-durability.v2.md":           "kv_ack-durability.v2",
		"!!!.star":                               "session",
	}
	for in, want := range cases {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNewSessionLayoutAndCollision(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 11, 30, 5, 6, 7, 0, time.UTC)
	a, err := NewSession(root, "demo", now)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "demo", "20261130T050607Z"); a.Dir != want {
		t.Fatalf("dir = %s, want %s", a.Dir, want)
	}
	for _, d := range subdirs {
		if st, err := os.Stat(filepath.Join(a.Dir, d)); err != nil || !st.IsDir() {
			t.Errorf("missing %s/", d)
		}
	}
	b, err := NewSession(root, "demo", now)
	if err != nil {
		t.Fatal(err)
	}
	if b.Dir == a.Dir {
		t.Fatal("two sessions in the same second share a directory")
	}
}

func TestSessionLogAndResults(t *testing.T) {
	s, err := NewSession(t.TempDir(), "demo", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	h := Header{Plan: "p.star", Seed: 42, Tier: "smoke"}
	if err := s.Event("s1", "start", "a | b", h); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(h, []ScenarioRow{{Scenario: "s1", TierMet: "not assessed", Verdict: "checker: valid"}}); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(s.Dir, "session-log.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(log)
	order := []string{"# Session log: demo @ ", "**SUT:**", "**Plan:** p.star", "**Commit under test:**",
		"**Session dir:**", "**Operator:**", "## Scenario timeline", `a \| b`, "## Scenario verdicts",
		"| s1 | not assessed | checker: valid |", "## Artifacts"}
	at := 0
	for _, want := range order {
		i := strings.Index(text[at:], want)
		if i < 0 {
			t.Fatalf("session log lacks %q after offset %d:\n%s", want, at, text)
		}
		at += i
	}
	if err := s.WriteJSON("results.json", map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	var got map[string]int
	data, _ := os.ReadFile(filepath.Join(s.Dir, "results.json"))
	if err := json.Unmarshal(data, &got); err != nil || got["x"] != 1 {
		t.Fatalf("results.json = %s (%v)", data, err)
	}
}

// TestNewSessionBeside: a replay or reduction lands in the original's
// <root>/<slug>/ directory, whatever the current directory is, and two in
// the same second do not collide.
func TestNewSessionBeside(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 11, 30, 5, 6, 7, 0, time.UTC)
	orig, err := NewSession(root, "demo-store", now)
	if err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Minute)
	for _, tt := range []struct {
		original, kind, want string
	}{
		{orig.Dir, "replay", filepath.Join(root, "demo-store", "20261130T050707Z-replay")},
		{orig.Dir + "/", "replay", filepath.Join(root, "demo-store", "20261130T050707Z-replay-2")},
		{orig.Dir, "reduce", filepath.Join(root, "demo-store", "20261130T050707Z-reduce")},
	} {
		s, err := NewSessionBeside(tt.original, tt.kind, later)
		if err != nil {
			t.Fatal(err)
		}
		if s.Dir != tt.want || s.Slug != "demo-store" {
			t.Errorf("NewSessionBeside(%s, %s) = %s (slug %s), want %s (slug demo-store)", tt.original, tt.kind, s.Dir, s.Slug, tt.want)
		}
		if st, err := os.Stat(filepath.Join(s.Dir, "findings")); err != nil || !st.IsDir() {
			t.Errorf("%s: missing findings/", s.Dir)
		}
	}
}
