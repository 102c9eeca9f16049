package interp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/gen"
)

// sched builds events from "ms:who:f" words: who is a client thread number,
// "n" for the nemesis ("n!" for a failed nemesis event) or "p" for a phase
// named f. Seq numbers them in order.
func sched(t *testing.T, s string) []Event {
	t.Helper()
	var out []Event
	for i, w := range strings.Fields(s) {
		var ms int
		var who, f string
		parts := strings.Split(w, ":")
		if len(parts) != 3 {
			t.Fatalf("bad word %q", w)
		}
		if _, err := fmt.Sscan(parts[0], &ms); err != nil {
			t.Fatalf("bad word %q: %v", w, err)
		}
		who, f = parts[1], parts[2]
		e := Event{T: time.Duration(ms) * time.Millisecond, F: f, Seq: i}
		switch who {
		case "p":
			e = Event{T: e.T, Phase: f, Seq: i}
		case "n", "n!":
			e.Thread, e.Process, e.Failed = gen.NemesisThread, -1, who == "n!"
		default:
			fmt.Sscan(who, &e.Thread)
			e.Process = e.Thread
		}
		out = append(out, e)
	}
	return out
}

// describeUnits renders units as "kind[faults]{f f ...}".
func describeUnits(units []Unit) string {
	kinds := map[UnitKind]string{UnitOps: "ops", UnitFault: "fault", UnitNemesis: "nemesis", UnitPhase: "phase"}
	var parts []string
	for _, u := range units {
		var fs []string
		for _, e := range u.Events {
			fs = append(fs, e.F+e.Phase)
		}
		parts = append(parts, fmt.Sprintf("%s%v{%s}", kinds[u.Kind], u.Faults, strings.Join(fs, " ")))
	}
	return strings.Join(parts, " ")
}

func TestReductionUnits(t *testing.T) {
	cases := []struct {
		name, events, want string
	}{
		{"a fault keeps its stop, clients slice by time",
			"0:0:a 10:n:start-partition 200:1:b 3100:n:stop-partition 3200:0:c",
			"ops[]{a} fault[start-partition]{start-partition stop-partition} ops[]{b} ops[]{c}"},
		{"client ops in one slice form one unit",
			"0:0:a 1:1:b 2:0:c 3200:1:d",
			"ops[]{a b c} ops[]{d}"},
		{"kill pairs with start, pause with resume, interleaved",
			"0:n:kill 1:n:pause 2:n:resume 3:n:start",
			"fault[kill]{kill start} fault[pause]{pause resume}"},
		{"a heal ends every open fault: they become one unit",
			"0:n:start-partition 5:0:a 10:n:kill 20:n:heal 30:n:start-loss 40:n:stop-loss",
			"fault[kill start-partition]{start-partition kill heal} ops[]{a} fault[start-loss]{start-loss stop-loss}"},
		{"a heal with nothing open, a stop with no start",
			"0:n:heal 1:n:stop-partition",
			"nemesis[heal]{heal} nemesis[stop-partition]{stop-partition}"},
		{"failed nemesis events are left out",
			"0:n:start-partition 1:n!:start-partition 2:n!:stop-loss 3:n:stop-partition",
			"fault[start-partition]{start-partition stop-partition}"},
		{"a fault never stopped is a unit alone; phases stand alone",
			"0:p:main 1:n:start-delay 2:0:a 9:p:final",
			"phase[]{main} fault[start-delay]{start-delay} ops[]{a} phase[]{final}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := describeUnits(ReductionUnits(sched(t, c.events))); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// ReductionSlices bounds the client units, each unit spans one slice, and a
// second call on one unit splits it further.
func TestReductionUnitsSlices(t *testing.T) {
	var words []string
	for ms := 0; ms < 1000; ms++ {
		words = append(words, fmt.Sprintf("%d:%d:op", ms, ms%4))
	}
	events := sched(t, strings.Join(words, " "))
	units := ReductionUnits(events)
	if len(units) != ReductionSlices {
		t.Fatalf("%d units, want %d", len(units), ReductionSlices)
	}
	for _, u := range units {
		if span := u.Events[len(u.Events)-1].T - u.Events[0].T; span >= time.Second/ReductionSlices+time.Millisecond {
			t.Fatalf("a unit spans %v", span)
		}
	}
	if finer := ReductionUnits(units[0].Events); len(finer) < 2 {
		t.Fatalf("splitting a unit again gave %d units", len(finer))
	}
}

// Flatten undoes ReductionUnits (less the failed nemesis events), and keeps
// each thread's order for any subset of units.
func TestFlatten(t *testing.T) {
	events := sched(t, "0:0:a 0:n:start-partition 0:1:b 5:0:c 5:n!:kill 5:1:d 3300:n:stop-partition 3300:0:e 3400:p:final")
	units := ReductionUnits(events)
	want := slices.DeleteFunc(slices.Clone(events), func(e Event) bool { return e.Failed })
	if got := Flatten(units); !reflect.DeepEqual(got, want) {
		t.Fatalf("Flatten(ReductionUnits(e))\n got %+v\nwant %+v", got, want)
	}
	// Reversing the units changes nothing: order comes from time and Seq.
	rev := slices.Clone(units)
	slices.Reverse(rev)
	if got := Flatten(rev); !reflect.DeepEqual(got, want) {
		t.Fatalf("Flatten of reversed units\n got %+v\nwant %+v", got, want)
	}
	// Dropping the fault unit drops both its events and nothing else.
	var noFault []Unit
	for _, u := range units {
		if u.Kind != UnitFault {
			noFault = append(noFault, u)
		}
	}
	var fs []string
	for _, e := range Flatten(noFault) {
		fs = append(fs, e.F+e.Phase)
	}
	if got := strings.Join(fs, " "); got != "a b c d e final" {
		t.Fatalf("without the fault unit: %s", got)
	}
}
