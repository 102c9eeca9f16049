package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

func TestNemesisWindows(t *testing.T) {
	tests := []struct {
		name string
		h    []string
		want []string // "label start..end"
	}{
		{"jepsen info pairs, start and stop", []string{
			":nemesis :info :start-partition nil", ":nemesis :info :start-partition :majority",
			"0 :invoke :read nil", "0 :ok :read nil",
			":nemesis :info :stop-partition nil", ":nemesis :info :stop-partition :healed",
		}, []string{"start-partition .. stop-partition 0..5"}},
		{"invoke and ok, kill then start", []string{
			":nemesis :invoke :kill nil", ":nemesis :ok :kill [\"n1\"]",
			":nemesis :invoke :start nil", ":nemesis :ok :start :all",
		}, []string{"kill .. start 0..3"}},
		{"pause and resume", []string{
			":nemesis :info :pause nil", ":nemesis :info :pause nil",
			":nemesis :info :resume nil", ":nemesis :info :resume nil",
		}, []string{"pause .. resume 0..3"}},
		{"plain start and stop", []string{
			":nemesis :info :start nil", ":nemesis :info :start nil",
			":nemesis :info :stop nil", ":nemesis :info :stop nil",
		}, []string{"start .. stop 0..3"}},
		{"one-shot event is its own window", []string{
			":nemesis :info :bump-clock nil", "0 :invoke :read nil", ":nemesis :info :bump-clock 288", "0 :ok :read nil",
		}, []string{"bump-clock 0..2"}},
		{"never stopped runs to the end", []string{
			":nemesis :info :start-packet nil", ":nemesis :info :start-packet nil",
			"0 :invoke :read nil", "0 :ok :read nil",
		}, []string{"start-packet (never stopped) 0..3"}},
		{"never completed runs to the end", []string{
			":nemesis :invoke :truncate nil", "0 :invoke :read nil", "0 :ok :read nil",
		}, []string{"truncate 0..2"}},
		{"overlapping faults", []string{
			":nemesis :info :start-partition nil", ":nemesis :info :start-partition nil",
			":nemesis :info :kill nil", ":nemesis :info :kill nil",
			":nemesis :info :stop-partition nil", ":nemesis :info :stop-partition nil",
			":nemesis :info :start nil", ":nemesis :info :start nil",
		}, []string{"start-partition .. stop-partition 0..5", "kill .. start 2..7"}},
		{"no nemesis", []string{"0 :invoke :read nil", "0 :ok :read nil"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := testhist.JepsenLog(t, tt.h...)
			pairs, err := history.Pair(h)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range nemesisWindows(h, pairs) {
				got = append(got, fmt.Sprintf("%s %d..%d", w.label(), w.start, w.end))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNemesisAnnotations(t *testing.T) {
	h := testhist.JepsenLog(t, ":nemesis :info :start-partition nil", `:nemesis :info :start-partition "cut n1"`,
		":nemesis :info :stop-partition nil", ":nemesis :info :stop-partition nil")
	pairs, err := history.Pair(h)
	if err != nil {
		t.Fatal(err)
	}
	as := nemesisAnnotations(nemesisWindows(h, pairs))
	if len(as) != 1 || as[0].Tag != "nemesis" || as[0].Start != 0 || as[0].End != 3 || as[0].Details != `"cut n1"` {
		t.Fatalf("got %+v", as)
	}
}
