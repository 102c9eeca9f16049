package interp

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/nemesis"
)

// statusEvery is how often the live status line is redrawn.
const statusEvery = 250 * time.Millisecond

// Status is the live one-line status of a run on a terminal, redrawn in
// place: the unit, its phase (setup, load, the active fault and its
// victims, recovering, checking, and whatever the caller names: sensitivity
// audit, re-run i/n), the elapsed time and what is left of the load's
// budget, ops/s and ok/fail/info.
//
// RunOptions.Status may be a *Status, which the plan runner shares across
// its units and the phases after a run, or any terminal writer (the script
// runner), for which a run makes a Status of its own for the load. It is
// only for terminals: on a CI log the redraws would be noise, and the
// session log records the same phases as events.
type Status struct {
	w   io.Writer
	now func() time.Time
	out sync.Mutex // one writer of w at a time: the redraws and Write

	mu    sync.Mutex
	unit  string    // the scenario or arm, and which re-run
	phase string    // what the caller said is happening ("" = derived from the load)
	begun time.Time // when the unit began
	load  *loadStatus

	done, finished chan struct{}
	closeOnce      sync.Once
}

// loadStatus is what the status knows of the load in progress (or the
// last one, once over): its counters and the nemesis ops, which tell the
// active fault.
type loadStatus struct {
	stats          *gen.Stats
	start, end     time.Time // end is zero while the load runs
	budget         time.Duration
	virtual        bool
	nemesis        []history.Op
	victims        map[string]any // fault op -> the value its completion returned
	pendingFaultOp string         // a fault invoked, not completed yet
}

// NewStatus starts redrawing a status line on w (a terminal) until Close.
func NewStatus(w io.Writer) *Status {
	s := &Status{w: w, now: time.Now, phase: "setup", done: make(chan struct{}), finished: make(chan struct{})}
	s.begun = s.now()
	go s.redraw()
	return s
}

func (s *Status) redraw() {
	defer close(s.finished)
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			s.out.Lock()
			fmt.Fprint(s.w, "\r\033[K")
			s.out.Unlock()
			return
		case <-t.C:
			line := s.Line()
			if width := terminalWidth(s.w); width > 1 && len([]rune(line)) >= width {
				// A line wider than the terminal wraps, and \r would
				// then redraw only its last row.
				line = string([]rune(line)[:width-1])
			}
			s.out.Lock()
			fmt.Fprint(s.w, "\r\033[K"+line)
			s.out.Unlock()
		}
	}
}

// Write writes p on a line of its own: the status line is cleared first
// and redrawn on the next tick, so messages printed during a run stay
// readable.
func (s *Status) Write(p []byte) (int, error) {
	s.out.Lock()
	defer s.out.Unlock()
	if _, err := fmt.Fprint(s.w, "\r\033[K"); err != nil {
		return 0, fmt.Errorf("status: %w", err)
	}
	return s.w.Write(p)
}

// Close stops the redraws and clears the line. It is safe to call twice.
func (s *Status) Close() {
	if s == nil {
		return
	}
	s.closeOnce.Do(func() {
		close(s.done)
		<-s.finished
	})
}

// Unit starts the status of a new unit (a scenario, an arm, a re-run):
// the clock restarts and the previous load's counters are dropped.
func (s *Status) Unit(name string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unit, s.phase, s.begun, s.load = name, "setup", s.now(), nil
}

// Phase names what the unit is doing now. During the load the phase is
// derived from the nemesis ops instead; a phase set after the load (checking,
// sensitivity audit) replaces that.
func (s *Status) Phase(p string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.phase = p
}

// Line renders the status as it is now.
func (s *Status) Line() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var parts []string
	if s.unit != "" {
		parts = append(parts, s.unit)
	}
	l := s.load
	phase := s.phase
	if l != nil && l.end.IsZero() {
		phase = l.phase()
	}
	parts = append(parts, phase)
	switch {
	case l == nil:
		parts = append(parts, clockString(now.Sub(s.begun)))
	case l.virtual:
		parts = append(parts, fmt.Sprintf("%s (simulated budget %s)", now.Sub(l.start).Round(100*time.Millisecond), l.budget))
	case l.end.IsZero():
		elapsed := now.Sub(l.start)
		parts = append(parts, fmt.Sprintf("%s/%s, %s left", clockString(elapsed), clockString(l.budget), clockString(max(l.budget-elapsed, 0))))
	default:
		parts = append(parts, fmt.Sprintf("%s (load %s)", clockString(now.Sub(s.begun)), clockString(l.end.Sub(l.start))))
	}
	if l != nil {
		end := now
		if !l.end.IsZero() {
			end = l.end
		}
		rate := 0.0
		if d := end.Sub(l.start); d > 0 {
			rate = float64(l.stats.Invoked.Load()) / d.Seconds()
		}
		parts = append(parts, fmt.Sprintf("%.0f ops/s", rate),
			fmt.Sprintf("ok %d  fail %d  info %d", l.stats.OK.Load(), l.stats.Fail.Load(), l.stats.Info.Load()))
	}
	return strings.Join(parts, "  ")
}

// clockString rounds a duration to whole seconds for a status line.
func clockString(d time.Duration) string { return d.Round(time.Second).String() }

// phase is the load's phase as its nemesis ops tell it: the faults in
// effect and their victims, a fault being injected, recovering after the
// last heal, or plain load before any fault.
func (l *loadStatus) phase() string {
	var open []string
	windows := nemesis.FaultWindows(l.nemesis)
	for _, w := range windows {
		if w.End < 0 {
			open = append(open, "fault "+w.Fault+on(victimsOf(l.victims[w.Fault])))
		}
	}
	switch {
	case len(open) > 0:
		return strings.Join(open, ", ")
	case l.pendingFaultOp != "":
		return "injecting " + l.pendingFaultOp
	case len(windows) > 0:
		return "recovering"
	}
	return "load"
}

func on(victims string) string {
	if victims == "" {
		return ""
	}
	return " on " + victims
}

// note records a nemesis op of the load.
func (l *loadStatus) note(op history.Op) {
	l.nemesis = append(l.nemesis, op)
	switch {
	case op.Type == history.Invoke && opensWindow(op.F):
		l.pendingFaultOp = op.F
	case op.Type == history.OK:
		l.victims[op.F] = op.Value
		l.pendingFaultOp = ""
	case op.Type != history.Invoke:
		l.pendingFaultOp = ""
	}
}

// opensWindow says whether nemesis op f injects a fault (rather than
// healing one); nemesis owns that table.
func opensWindow(f string) bool { return nemesis.OpensWindow(f) }

// victimsOf names a fault's victims from the value its completion
// returned: the nodes it acted on, or a partition's sides.
func victimsOf(v any) string { return nemesis.Victims(v) }

// terminalWidth is w's width in columns, or 0 when w is not a terminal.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

// liveLoad is the status of one run's load: the run notes its nemesis ops
// and stops it when the load is over.
type liveLoad struct {
	status *Status
	own    bool // made for this run (a plain terminal writer): closed with the load
}

// startStatus shows the load of a run on w until the returned liveLoad is
// stopped; a nil w shows nothing.
func startStatus(w io.Writer, stats *gen.Stats, budget time.Duration, virtual bool) *liveLoad {
	if w == nil {
		return nil
	}
	s, shared := w.(*Status)
	if shared && s == nil {
		return nil
	}
	if !shared {
		s = NewStatus(w)
	}
	s.mu.Lock()
	s.load = &loadStatus{stats: stats, start: s.now(), budget: budget, virtual: virtual, victims: map[string]any{}}
	s.mu.Unlock()
	return &liveLoad{status: s, own: !shared}
}

// note feeds a recorded op to the status: nemesis ops tell the phase.
func (l *liveLoad) note(op history.Op) {
	if l == nil || !op.IsNemesis() {
		return
	}
	l.status.mu.Lock()
	defer l.status.mu.Unlock()
	if l.status.load != nil {
		l.status.load.note(op)
	}
}

// stop ends the load's part of the status: its counters stay on the line,
// the phase is the caller's again (checking, by default).
func (l *liveLoad) stop() {
	if l == nil {
		return
	}
	if l.own {
		l.status.Close()
		return
	}
	s := l.status
	s.mu.Lock()
	if s.load != nil {
		s.load.end = s.now()
	}
	s.phase = "checking"
	s.mu.Unlock()
}

// StatusOf returns w when it is a *Status, else nil; the methods of a nil
// *Status do nothing, so callers need not check.
func StatusOf(w io.Writer) *Status {
	s, _ := w.(*Status)
	return s
}

// Writer returns s as an io.Writer for RunOptions.Status: nil (no status)
// when s is nil, rather than an interface holding a nil pointer.
func (s *Status) Writer() io.Writer {
	if s == nil {
		return nil
	}
	return s
}

// setPhase names the phase of a run on its status, when it is a *Status.
func setPhase(w io.Writer, phase string) {
	if s, ok := w.(*Status); ok {
		s.Phase(phase)
	}
}
