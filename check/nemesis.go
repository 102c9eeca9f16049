package check

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/anishathalye/porcupine"

	"github.com/faultline/faultline/history"
)

// window is a stretch of the history during which a fault was (possibly)
// active: a start/stop pair of nemesis events, or one event's invocation to
// its completion. Positions index the history.
type window struct {
	fs         []string // the nemesis functions involved, in order
	start, end int
	notes      []string // nemesis values, for tooltips
	unhealed   bool     // still open when the history ended
}

// label names the window for a person: "start-partition .. stop-partition".
func (w *window) label() string {
	s := strings.Join(w.fs, " .. ")
	if w.unhealed {
		s += " (never stopped)"
	}
	return s
}

// nemesisEvent is one nemesis action: its invocation and completion records.
type nemesisEvent struct {
	f          string
	start, end int
	notes      []string
}

// nemesisEvents lists the nemesis actions among the paired ops. An action that
// never completed lasts to the end of the history.
func nemesisEvents(h []history.Op, pairs []history.OpPair) []nemesisEvent {
	var evs []nemesisEvent
	for _, p := range pairs {
		inv := &h[p.Invoke]
		if !inv.IsNemesis() {
			continue
		}
		e := nemesisEvent{f: inv.F, start: p.Invoke, end: len(h) - 1, notes: appendNote(nil, inv)}
		if p.Complete >= 0 {
			e.end, e.notes = p.Complete, appendNote(e.notes, &h[p.Complete])
		}
		evs = append(evs, e)
	}
	return evs
}

func appendNote(notes []string, op *history.Op) []string {
	for _, v := range []any{op.Value, op.Error} {
		if v != nil {
			notes = append(notes, formatValue(v))
		}
	}
	return notes
}

// stopOf names the function that ends a fault started by f, "" if f starts none.
func stopOf(f string) string {
	switch {
	case f == "start":
		return "stop"
	case f == "pause":
		return "resume"
	case f == "kill":
		return "start" // Jepsen's db package restarts killed nodes with :start
	case strings.HasPrefix(f, "start-"):
		return "stop-" + strings.TrimPrefix(f, "start-")
	}
	return ""
}

// nemesisWindows turns nemesis events into fault windows: a start-style event
// opens a window that the matching stop-style event closes; any other event is
// a window of its own. A window still open at the end runs to the end.
func nemesisWindows(h []history.Op, pairs []history.OpPair) []window {
	var done, open []window
	for _, e := range nemesisEvents(h, pairs) {
		closed := false
		for i := range open {
			if stopOf(open[i].fs[0]) == e.f {
				w := open[i]
				w.fs, w.end, w.notes = append(w.fs, e.f), e.end, append(w.notes, e.notes...)
				done = append(done, w)
				open = append(open[:i], open[i+1:]...)
				closed = true
				break
			}
		}
		if closed {
			continue
		}
		w := window{fs: []string{e.f}, start: e.start, end: e.end, notes: e.notes}
		if stopOf(e.f) != "" {
			open = append(open, w)
		} else {
			done = append(done, w)
		}
	}
	for _, w := range open {
		w.end, w.unhealed = max(len(h)-1, w.end), true
		done = append(done, w)
	}
	sort.SliceStable(done, func(i, j int) bool { return done[i].start < done[j].start })
	return done
}

// nemesisAnnotations renders windows as porcupine annotations on a "nemesis" row.
func nemesisAnnotations(ws []window) []porcupine.Annotation {
	as := make([]porcupine.Annotation, len(ws))
	for i, w := range ws {
		as[i] = porcupine.Annotation{
			Tag:             "nemesis",
			Start:           int64(w.start),
			End:             int64(w.end),
			Description:     w.label(),
			Details:         truncate(strings.Join(w.notes, "; "), 400),
			BackgroundColor: "#f6c7c1",
		}
	}
	return as
}

// overlapping returns the windows that intersect positions [from, to].
func overlapping(ws []window, from, to int) []window {
	var out []window
	for _, w := range ws {
		if w.start <= to && w.end >= from {
			out = append(out, w)
		}
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
