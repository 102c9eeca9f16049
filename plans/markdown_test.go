package plans

import (
	"slices"
	"testing"
)

func TestSplitRow(t *testing.T) {
	cases := map[string][]string{
		"| a | b |":                 {"a", "b"},
		"a | b":                     {"a", "b"},
		"| `x|y` | b |":             {"`x|y`", "b"},
		`| a \| b | c |`:            {"a | b", "c"},
		"| a |  |":                  {"a", ""},
		"|":                         {""},
		"| unbalanced ` code | x |": {"unbalanced ` code", "x"},
	}
	for in, want := range cases {
		if got := splitRow(in); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestHeading(t *testing.T) {
	cases := []struct {
		in    string
		level int
		text  string
		ok    bool
	}{
		{"## 1b. Claims", 2, "1b. Claims", true},
		{"### Scenario S1: x ###", 3, "Scenario S1: x", true},
		{"   # Title", 1, "Title", true},
		{"####", 4, "", true},
		{"#hashtag", 0, "", false},
		{"    # code", 0, "", false},
		{"####### seven", 0, "", false},
	}
	for _, c := range cases {
		level, text, ok := heading(c.in)
		if level != c.level || text != c.text || ok != c.ok {
			t.Errorf("%q: got %d %q %v", c.in, level, text, ok)
		}
	}
}

func TestListItem(t *testing.T) {
	cases := []struct {
		in     string
		indent int
		text   string
		ok     bool
	}{
		{"- a", 0, "a", true},
		{"  * b", 2, "b", true},
		{"\t+ c", 4, "c", true},
		{"12. d", 0, "d", true},
		{"3) e", 0, "e", true},
		{"**Date:** x", 0, "", false},
		{"-no space", 0, "", false},
	}
	for _, c := range cases {
		indent, text, ok := listItem(c.in)
		if indent != c.indent || text != c.text || ok != c.ok {
			t.Errorf("%q: got %d %q %v", c.in, indent, text, ok)
		}
	}
}

func TestBoldLabel(t *testing.T) {
	cases := []struct{ in, label, value string }{
		{"**Oracle:** x", "Oracle", "x"},
		{"**Oracle**: x", "Oracle", "x"},
		{"__Oracle:__x", "Oracle", "x"},
		{"**Oracle:**", "Oracle", ""},
		{"**Bold statement** without colon", "", ""},
		{"**:** x", "", ""},
	}
	for _, c := range cases {
		label, value, _ := boldLabel(c.in)
		if label != c.label || value != c.value {
			t.Errorf("%q: got %q %q", c.in, label, value)
		}
	}
}

func TestNearestField(t *testing.T) {
	cases := map[string]string{
		"Orcale":                "Oracle",
		"Obervability required": "Observability required",
		"Exit critera":          "Exit criteria",
		"Hardenning budget":     "Hardening budget",
		"Notes":                 "",
		"Owner":                 "", // short labels are never guessed
	}
	for label, want := range cases {
		got, ok := scenarioFields.nearest(label)
		if got != want || ok != (want != "") {
			t.Errorf("%q: got %q %v, want %q", label, got, ok, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"oracle", "oracle", 3, 0},
		{"orcale", "oracle", 3, 2},
		{"oracle", "oracles", 3, 1},
		{"oracle", "workload", 3, 3},
		{"", "abc", 5, 3},
	}
	for _, c := range cases {
		if got := editDistance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("%q %q: got %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNormModel(t *testing.T) {
	cases := map[string]string{
		"register":                  "register",
		"`map` (per key)":           "map",
		"Membership table":          "membership-table",
		"other(bank)":               "other(bank)",
		"other ( observability ) x": "other(observability)",
		"other":                     "",
		"register | map | queue":    "",
		"blob":                      "",
	}
	for in, want := range cases {
		if got := normModel(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
