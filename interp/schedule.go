package interp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
)

// ScheduleVersion is the schedule format version this package writes and
// reads.
const ScheduleVersion = 1

// ScheduleFile is the name of a run's schedule in its artifact directory.
const ScheduleFile = "schedule.jsonl"

// ScheduleHeader is the first line of a schedule: what ran, and with what,
// so a replay can refuse a schedule that does not fit the scenario or nodes.
type ScheduleHeader struct {
	Schedule     int       `json:"schedule"` // format version (ScheduleVersion)
	Scenario     string    `json:"scenario"`
	Tier         string    `json:"tier"`
	Seed         uint64    `json:"seed,string"` // a string, so JSON readers keep all 64 bits
	Concurrency  int       `json:"concurrency"`
	Nodes        []string  `json:"nodes"`
	Script       string    `json:"script,omitempty"` // absolute path of the scenario's script, for replay
	Local        bool      `json:"local,omitempty"`  // the nodes were local (--local): replay makes them again
	ScriptSHA256 string    `json:"script_sha256"`
	SuiteSHA256  string    `json:"suite_sha256"` // empty for a scenario run without a suite
	Started      time.Time `json:"started"`      // RFC3339
	// Libs are the --lib roots the script loaded from, each with its
	// digest; the files themselves are kept in the artifact directory's
	// libs/NAME (see LibUse.Kept).
	Libs []LibUse `json:"libs,omitempty"`
	// Params are the -p values the script loaded with, and Overrides the
	// command line's --time-limit and --concurrency: a replay, reduction
	// or heal loads and runs the scenario with the same.
	Params    Params     `json:"params,omitempty"`
	Overrides *Overrides `json:"overrides,omitempty"`
}

// Event is one line of a schedule after the header: an invocation (a client
// op or a nemesis event with its resolved value) or, when Phase is set, a
// phase boundary that carries only T.
type Event struct {
	T       time.Duration // since the run started
	Thread  int           // client thread, or gen.NemesisThread
	Process int           // the process that ran it (history.NemesisProcess for the nemesis)
	F       string
	Key     any // nil when the op has none
	Value   any // for the nemesis, the completion's resolved value (grudge, node list)
	Phase   string
	Failed  bool // a nemesis event whose completion failed: it changed nothing
	// Seq is the event's position in the schedule as read (ReadSchedule sets
	// it; it is not written). It keeps events of equal T in recorded order
	// when Flatten merges reduction units.
	Seq int
}

// IsNemesis reports whether e is a nemesis event.
func (e *Event) IsNemesis() bool { return e.Phase == "" && e.Thread == gen.NemesisThread }

// scheduleChunk is how much buffered text makes the writer write at once.
const scheduleChunk = 32 << 10

// ScheduleWriter writes a run's schedule as the run goes. Like the history
// journal, lines are buffered and handed to the OS whole, on Flush, when
// 32KiB have gathered and at least every history.FlushInterval, so a killed
// run loses no more of its schedule than of its history and leaves a
// readable prefix (ReadSchedule drops a torn last line). It is safe for
// concurrent use.
type ScheduleWriter struct {
	path        string
	concurrency int
	stop, done  chan struct{}

	mu      sync.Mutex
	f       *os.File
	buf     []byte
	held    []byte      // client lines invoked while a nemesis op is in flight
	nemesis *history.Op // that nemesis invocation, if any (see Record)
	err     error       // first write error; sticky
	closed  bool
}

// NewScheduleWriter creates the schedule at path, writes h (with Schedule set
// to ScheduleVersion) at once and starts the background flusher; Close stops
// it. Like history.Create it refuses to replace an existing file.
func NewScheduleWriter(path string, h ScheduleHeader) (*ScheduleWriter, error) {
	return newScheduleWriter(path, h, nil)
}

// newScheduleWriter is NewScheduleWriter with the flusher driven by tick
// (nil: a history.FlushInterval ticker), so a test can drive it without
// timing.
func newScheduleWriter(path string, h ScheduleHeader, tick <-chan time.Time) (*ScheduleWriter, error) {
	head, err := appendHeader(nil, h)
	if err != nil {
		return nil, fmt.Errorf("schedule %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create schedule: %w", err)
	}
	if _, err := f.Write(head); err != nil {
		f.Close()
		return nil, fmt.Errorf("schedule %s: write header: %w", path, err)
	}
	w := &ScheduleWriter{
		path:        path,
		concurrency: h.Concurrency,
		f:           f,
		buf:         make([]byte, 0, scheduleChunk+scheduleChunk/4),
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
	}
	if tick == nil {
		// The same bound as the history's: a schedule that lagged its
		// history would replay a killed run's last ops without their
		// invocations.
		t := time.NewTicker(history.FlushInterval)
		go func() { <-w.done; t.Stop() }()
		tick = t.C
	}
	go w.flushLoop(tick)
	return w, nil
}

// flushLoop writes what is buffered on every tick until Close.
func (w *ScheduleWriter) flushLoop(tick <-chan time.Time) {
	defer close(w.done)
	for {
		select {
		case <-w.stop:
			return
		case <-tick:
			w.mu.Lock()
			w.writeLocked()
			w.mu.Unlock()
		}
	}
}

// Record takes every op the run records (gen.Config.Record order) and writes
// what the schedule needs: client invocations, and each nemesis event once
// its completion resolves it. Client invocations that start while a nemesis
// op is in flight are held back and written after it, so the file stays in
// time order although the nemesis line can only be written at completion.
func (w *ScheduleWriter) Record(op history.Op) error {
	switch {
	case op.IsNemesis() && op.Type == history.Invoke:
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.closed {
			return history.ErrClosed
		}
		inv := op
		w.nemesis = &inv
		return nil
	case op.IsNemesis():
		w.mu.Lock()
		inv := w.nemesis
		w.mu.Unlock()
		if inv == nil {
			return fmt.Errorf("schedule %s: nemesis %s completion without an invocation", w.path, op.F)
		}
		return w.Nemesis(*inv, op)
	case op.Type == history.Invoke:
		if w.concurrency <= 0 || op.Process < 0 {
			return fmt.Errorf("schedule %s: client process %d with concurrency %d", w.path, op.Process, w.concurrency)
		}
		return w.Invoke(op, op.Process%w.concurrency)
	}
	return nil // client completions are not part of the schedule
}

// Invoke writes a client invocation made on thread. While a nemesis
// invocation passed to Record awaits its completion, the line is held back.
func (w *ScheduleWriter) Invoke(op history.Op, thread int) error {
	return w.Event(Event{T: time.Duration(op.Time), Thread: thread, Process: op.Process, F: op.F, Key: op.Key, Value: op.Value})
}

// Nemesis writes a nemesis event at its invocation's time with its
// completion's resolved value (the invocation's value if the completion has
// none). A failed completion is written too, marked failed: the fault did
// nothing, and reduction drops it.
func (w *ScheduleWriter) Nemesis(invoke, completion history.Op) error {
	v := completion.Value
	if v == nil {
		v = invoke.Value
	}
	return w.Event(Event{T: time.Duration(invoke.Time), Thread: gen.NemesisThread, Process: history.NemesisProcess,
		F: invoke.F, Key: invoke.Key, Value: v, Failed: completion.Type == history.Fail})
}

// Phase writes a phase boundary at t.
func (w *ScheduleWriter) Phase(t time.Duration, name string) error {
	return w.Event(Event{T: t, Phase: name})
}

// Event writes e as it is (Seq is not written). Record, Invoke, Nemesis and
// Phase all end here; WriteSchedule uses it to write a reduced schedule. An
// event whose key or value lies outside the generic value model is refused.
func (w *ScheduleWriter) Event(e Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return history.ErrClosed
	}
	pending := w.nemesis != nil && !e.IsNemesis()
	dst := &w.buf
	if pending {
		dst = &w.held
	}
	n := len(*dst)
	var err error
	if *dst, err = appendEvent(*dst, &e); err != nil {
		*dst = (*dst)[:n]
		err = fmt.Errorf("schedule %s: refusing the %q event at %v: %w", w.path, e.F, e.T, err)
	} else {
		*dst = append(*dst, '\n')
	}
	if e.IsNemesis() && w.nemesis != nil {
		// The nemesis op resolved (or was refused): release what it held
		// back, after it.
		w.buf = append(w.buf, w.held...)
		w.held, w.nemesis = w.held[:0], nil
	}
	if len(w.buf) >= scheduleChunk {
		w.writeLocked()
	}
	if err != nil {
		return err
	}
	return w.err
}

// writeLocked hands the buffered lines to the OS. The caller holds w.mu.
func (w *ScheduleWriter) writeLocked() {
	if len(w.buf) == 0 || w.err != nil {
		w.buf = w.buf[:0]
		return
	}
	if _, err := w.f.Write(w.buf); err != nil {
		w.err = fmt.Errorf("schedule %s: %w", w.path, err)
	}
	w.buf = w.buf[:0]
}

// Flush writes every line buffered so far (not lines held behind an
// unresolved nemesis op).
func (w *ScheduleWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return history.ErrClosed
	}
	w.writeLocked()
	return w.err
}

// Close stops the flusher and writes, syncs and closes the file. Lines held
// behind a nemesis op that never completed are written; that op is not, as
// its value was never resolved. Later calls return history.ErrClosed.
func (w *ScheduleWriter) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return history.ErrClosed
	}
	w.closed = true
	w.mu.Unlock()
	close(w.stop)
	<-w.done

	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, w.held...)
	w.held, w.nemesis = nil, nil
	w.writeLocked()
	err := w.err
	if serr := w.f.Sync(); serr != nil && err == nil {
		err = fmt.Errorf("schedule %s: sync: %w", w.path, serr)
	}
	if cerr := w.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("schedule %s: close: %w", w.path, cerr)
	}
	return err
}

// WriteSchedule writes a whole schedule at once, for instance a reduced one.
func WriteSchedule(path string, h ScheduleHeader, events []Event) error {
	w, err := NewScheduleWriter(path, h)
	if err != nil {
		return err
	}
	for i := range events {
		if err := w.Event(events[i]); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// appendHeader appends h as the first line of a schedule, newline included,
// with Schedule set to ScheduleVersion.
func appendHeader(dst []byte, h ScheduleHeader) ([]byte, error) {
	h.Schedule = ScheduleVersion
	if h.Nodes == nil {
		h.Nodes = []string{}
	}
	head, err := json.Marshal(h)
	if err != nil {
		return dst, fmt.Errorf("encode header: %w", err)
	}
	return append(append(dst, head...), '\n'), nil
}

// appendEvent appends e as one JSON line without the newline. Key and value
// use the history's JSONL value encoding, so they read back as history.jsonl
// values do (integers as int64, never float64).
func appendEvent(dst []byte, e *Event) ([]byte, error) {
	dst = append(dst, `{"t":`...)
	dst = strconv.AppendInt(dst, int64(e.T), 10)
	if e.Phase != "" {
		dst = append(dst, `,"phase":`...)
		dst, _ = history.AppendJSONValue(dst, e.Phase)
		return append(dst, '}'), nil
	}
	dst = append(dst, `,"thread":`...)
	dst = strconv.AppendInt(dst, int64(e.Thread), 10)
	dst = append(dst, `,"process":`...)
	dst = strconv.AppendInt(dst, int64(e.Process), 10)
	dst = append(dst, `,"f":`...)
	dst, _ = history.AppendJSONValue(dst, e.F)
	var err error
	if e.Key != nil {
		dst = append(dst, `,"key":`...)
		if dst, err = history.AppendJSONValue(dst, e.Key); err != nil {
			return dst, fmt.Errorf("key: %w", err)
		}
	}
	if e.Value != nil {
		dst = append(dst, `,"value":`...)
		if dst, err = history.AppendJSONValue(dst, e.Value); err != nil {
			return dst, fmt.Errorf("value: %w", err)
		}
	}
	if e.Failed {
		dst = append(dst, `,"failed":true`...)
	}
	return append(dst, '}'), nil
}

// ReadSchedule reads the schedule at path. Events come back in time order
// (stable, so ties keep their recorded order) with Seq numbering them. A last
// line cut short by a killed writer is dropped; any other malformed line is
// an error naming path:line.
func ReadSchedule(path string) (ScheduleHeader, []Event, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ScheduleHeader{}, nil, fmt.Errorf("read schedule: %w", err)
	}
	h, events, err := parseSchedule(data, path)
	for i := range h.Libs {
		h.Libs[i].Kept = filepath.Join(filepath.Dir(path), LibsDir, h.Libs[i].Name)
	}
	return h, events, err
}

// parseSchedule reads a schedule from data; name labels errors.
func parseSchedule(data []byte, name string) (ScheduleHeader, []Event, error) {
	var (
		h      ScheduleHeader
		events []Event
		header bool
	)
	for off, lineNo := 0, 1; off < len(data); lineNo++ {
		end := bytes.IndexByte(data[off:], '\n')
		torn := end < 0 // a last line without its newline
		if torn {
			end = len(data) - off
		}
		line := data[off : off+end]
		off += end + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var err error
		if !header {
			h, err = parseHeader(line)
			header = err == nil
		} else {
			var e Event
			if e, err = parseEvent(line, h.Concurrency); err == nil {
				events = append(events, e)
			}
		}
		if err != nil {
			if torn && header && errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			return ScheduleHeader{}, nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
	}
	if !header {
		return ScheduleHeader{}, nil, fmt.Errorf("%s: empty schedule: no header line", name)
	}
	slices.SortStableFunc(events, func(a, b Event) int { return cmp.Compare(a.T, b.T) })
	for i := range events {
		events[i].Seq = i
	}
	return h, events, nil
}

// decodeStrict decodes one JSON object from line into v, refusing unknown
// keys and trailing text. A line that ends mid-object gives an error that
// wraps io.ErrUnexpectedEOF.
func decodeStrict(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected text after the JSON object")
	}
	return nil
}

func parseHeader(line []byte) (ScheduleHeader, error) {
	var h ScheduleHeader
	if err := decodeStrict(line, &h); err != nil {
		return h, fmt.Errorf("schedule header: %w", err)
	}
	if h.Schedule != ScheduleVersion {
		return h, fmt.Errorf("schedule header: format version %d, this faultline reads version %d", h.Schedule, ScheduleVersion)
	}
	if h.Concurrency < 1 || h.Concurrency > gen.MaxConcurrency {
		return h, fmt.Errorf("schedule header: concurrency %d is out of range 1..%d", h.Concurrency, gen.MaxConcurrency)
	}
	for _, u := range h.Libs {
		// The names become paths of the kept copy: a hand-edited header
		// must not point a replay outside the artifact directory.
		if err := checkLibUse(u); err != nil {
			return h, fmt.Errorf("schedule header: %w", err)
		}
	}
	return h, nil
}

// eventLine is the JSON shape of an event; pointers tell a missing field
// from a zero one.
type eventLine struct {
	T       *int64          `json:"t"`
	Thread  *int            `json:"thread"`
	Process *int            `json:"process"`
	F       *string         `json:"f"`
	Key     json.RawMessage `json:"key"`
	Value   json.RawMessage `json:"value"`
	Phase   *string         `json:"phase"`
	Failed  bool            `json:"failed"`
}

func parseEvent(line []byte, concurrency int) (Event, error) {
	var l eventLine
	if err := decodeStrict(line, &l); err != nil {
		return Event{}, fmt.Errorf("schedule event: %w", err)
	}
	if l.T == nil || *l.T < 0 {
		return Event{}, errors.New(`schedule event: "t" is missing or negative`)
	}
	e := Event{T: time.Duration(*l.T), Failed: l.Failed}
	if l.Phase != nil {
		if *l.Phase == "" || l.Thread != nil || l.Process != nil || l.F != nil || l.Key != nil || l.Value != nil || l.Failed {
			return Event{}, errors.New(`schedule event: a phase line has only "t" and a non-empty "phase"`)
		}
		e.Phase = *l.Phase
		return e, nil
	}
	if l.Thread == nil || l.Process == nil || l.F == nil || *l.F == "" {
		return Event{}, errors.New(`schedule event: "thread", "process" and a non-empty "f" are required`)
	}
	e.Thread, e.Process, e.F = *l.Thread, *l.Process, *l.F
	switch {
	case e.Thread == gen.NemesisThread:
		if e.Process != history.NemesisProcess {
			return Event{}, fmt.Errorf("schedule event: the nemesis thread runs process %d, not %d", history.NemesisProcess, e.Process)
		}
	case e.Thread < 0 || e.Thread >= concurrency:
		return Event{}, fmt.Errorf("schedule event: thread %d is out of range -1..%d", e.Thread, concurrency-1)
	case e.Process < 0:
		return Event{}, fmt.Errorf("schedule event: client thread %d runs process %d", e.Thread, e.Process)
	case l.Failed:
		return Event{}, errors.New(`schedule event: only nemesis events are marked "failed"`)
	}
	var err error
	if e.Key, err = rawValue(l.Key); err != nil {
		return Event{}, fmt.Errorf("schedule event: key: %w", err)
	}
	if e.Value, err = rawValue(l.Value); err != nil {
		return Event{}, fmt.Errorf("schedule event: value: %w", err)
	}
	return e, nil
}

// rawValue decodes a key or value with the history's JSONL value reader; a
// missing one is nil.
func rawValue(raw json.RawMessage) (any, error) {
	if raw == nil {
		return nil, nil
	}
	return history.ParseJSONValue(raw)
}
