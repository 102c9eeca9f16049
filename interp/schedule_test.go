package interp

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/golden"
)

func testHeader() ScheduleHeader {
	return ScheduleHeader{
		Scenario: "register_under_partition", Tier: "smoke", Seed: math.MaxUint64 - 1,
		Concurrency: 2, Nodes: []string{"n1", "n2", "n3"},
		ScriptSHA256: strings.Repeat("ab", 32),
		Started:      time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC),
	}
}

// recordedRun is what gen.Run hands Record in a small run: a nemesis
// partition whose completion resolves the grudge, client ops invoked while it
// was being applied, a failed stop, and values of every generic type.
func recordedRun() []history.Op {
	const ms = int64(time.Millisecond)
	grudge := map[string]any{"n1": []any{"n2", "n3"}, "n2": []any{"n1"}, "n3": []any{"n1"}}
	return []history.Op{
		{Time: 0, Process: 0, Type: history.Invoke, F: "write", Key: "k1", Value: int64(1) << 60},
		{Time: 1 * ms, Process: history.NemesisProcess, Type: history.Invoke, F: "start-partition", Value: "majority"},
		{Time: 2 * ms, Process: 1, Type: history.Invoke, F: "read", Key: "k2"},
		{Time: 3 * ms, Process: 0, Type: history.Info, F: "write", Key: "k1", Error: "timeout"},
		{Time: 4 * ms, Process: 2, Type: history.Invoke, F: "cas", Key: history.Keyword("k1"), Value: []any{int64(1), 2.5}},
		{Time: 5 * ms, Process: history.NemesisProcess, Type: history.Info, F: "start-partition", Value: grudge},
		{Time: 6 * ms, Process: history.NemesisProcess, Type: history.Invoke, F: "stop-loss"},
		{Time: 7 * ms, Process: history.NemesisProcess, Type: history.Fail, F: "stop-loss", Error: "no loss is active"},
		{Time: 8 * ms, Process: 1, Type: history.Invoke, F: "add", Value: history.Set{"a", "b"}},
	}
}

func writeRecorded(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, ScheduleFile)
	w, err := NewScheduleWriter(path, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range recordedRun() {
		if err := w.Record(op); err != nil {
			t.Fatalf("Record(%+v): %v", op, err)
		}
	}
	if err := w.Phase(9*time.Millisecond, "final"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, history.ErrClosed) {
		t.Fatalf("second Close: %v, want ErrClosed", err)
	}
	return path
}

// The golden file shows the format: header, then lines in time order even
// though the partition could only be written when it completed.
func TestScheduleWriterGolden(t *testing.T) {
	path := writeRecorded(t, t.TempDir())
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/schedule.golden.jsonl", got)
}

func TestScheduleRoundTrip(t *testing.T) {
	path := writeRecorded(t, t.TempDir())
	h, events, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	want := testHeader()
	want.Schedule = ScheduleVersion
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("header\n got %+v\nwant %+v", h, want)
	}
	const ms = time.Millisecond
	grudge := map[string]any{"n1": []any{"n2", "n3"}, "n2": []any{"n1"}, "n3": []any{"n1"}}
	wantEvents := []Event{
		{T: 0, Thread: 0, Process: 0, F: "write", Key: "k1", Value: int64(1) << 60},
		{T: 1 * ms, Thread: gen.NemesisThread, Process: history.NemesisProcess, F: "start-partition", Value: grudge},
		{T: 2 * ms, Thread: 1, Process: 1, F: "read", Key: "k2"},
		{T: 4 * ms, Thread: 0, Process: 2, F: "cas", Key: "k1", Value: []any{int64(1), 2.5}},
		{T: 6 * ms, Thread: gen.NemesisThread, Process: history.NemesisProcess, F: "stop-loss", Failed: true},
		{T: 8 * ms, Thread: 1, Process: 1, F: "add", Value: []any{"a", "b"}},
		{T: 9 * ms, Phase: "final"},
	}
	for i := range wantEvents {
		wantEvents[i].Seq = i
	}
	if !reflect.DeepEqual(events, wantEvents) {
		t.Fatalf("events\n got %+v\nwant %+v", events, wantEvents)
	}
}

// A run killed mid-write leaves a torn last line: the prefix still reads.
func TestReadScheduleDropsTornLastLine(t *testing.T) {
	path := writeRecorded(t, t.TempDir())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, all, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := data[:len(data)-9] // into the last line, "final"}\n
	if err := os.WriteFile(path, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	_, events, err := ReadSchedule(path)
	if err != nil {
		t.Fatalf("torn tail: %v", err)
	}
	if len(events) != len(all)-1 {
		t.Fatalf("%d events after tearing the last line, want %d", len(events), len(all)-1)
	}
}

func TestReadScheduleErrors(t *testing.T) {
	head := `{"schedule":1,"scenario":"s","tier":"smoke","seed":"7","concurrency":2,"nodes":[],"script_sha256":"","suite_sha256":"","started":"2025-01-01T00:00:00Z"}` + "\n"
	cases := []struct {
		name, data, want string
	}{
		{"empty", "", "no header line"},
		{"torn header", head[:40], "s.jsonl:1: schedule header: unexpected EOF"},
		{"version", strings.Replace(head, `"schedule":1`, `"schedule":2`, 1), "s.jsonl:1: schedule header: format version 2"},
		{"numeric seed", strings.Replace(head, `"seed":"7"`, `"seed":7`, 1), "s.jsonl:1: schedule header"},
		{"unknown header key", strings.Replace(head, `"tier"`, `"tear"`, 1), `s.jsonl:1: schedule header: json: unknown field "tear"`},
		{"no time", head + `{"thread":0,"process":0,"f":"read"}` + "\n", `s.jsonl:2: schedule event: "t" is missing`},
		{"negative time", head + `{"t":-1,"thread":0,"process":0,"f":"read"}` + "\n", `s.jsonl:2: schedule event: "t" is missing or negative`},
		{"no f", head + "\n" + `{"t":1,"thread":0,"process":0}` + "\n", `s.jsonl:3: schedule event: "thread", "process" and a non-empty "f"`},
		{"thread range", head + `{"t":1,"thread":2,"process":2,"f":"read"}` + "\n", "s.jsonl:2: schedule event: thread 2 is out of range -1..1"},
		{"nemesis process", head + `{"t":1,"thread":-1,"process":3,"f":"kill"}` + "\n", "the nemesis thread runs process -1, not 3"},
		{"failed client", head + `{"t":1,"thread":0,"process":0,"f":"read","failed":true}` + "\n", `only nemesis events are marked "failed"`},
		{"phase with op fields", head + `{"t":1,"phase":"p","f":"read"}` + "\n", "a phase line has only"},
		{"trailing text", head + `{"t":1,"phase":"p"} x` + "\n", "s.jsonl:2: schedule event: unexpected text after the JSON object"},
		{"bad value", head + `{"t":1,"thread":0,"process":0,"f":"w","value":[1,}` + "\n", "s.jsonl:2: schedule event:"},
		{"torn line mid-file", head + `{"t":1,"thr` + "\n" + `{"t":2,"phase":"p"}`, "s.jsonl:2: schedule event: unexpected EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parseSchedule([]byte(c.data), "s.jsonl")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestReadScheduleMissingFile(t *testing.T) {
	_, _, err := ReadSchedule(filepath.Join(t.TempDir(), "nope.jsonl"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("error %v, want it to wrap ErrNotExist", err)
	}
}

// Lines the writer buffered reach the file on Flush, before Close: a killed
// run leaves them behind.
func TestScheduleWriterFlushAndRefusal(t *testing.T) {
	path := filepath.Join(t.TempDir(), ScheduleFile)
	w, err := NewScheduleWriter(path, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := NewScheduleWriter(path, testHeader()); err == nil {
		t.Fatal("a second writer replaced an existing schedule")
	}
	if err := w.Invoke(history.Op{Time: 5, Process: 1, F: "read"}, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Invoke(history.Op{Time: 6, Process: 1, F: "w", Value: struct{}{}}, 1); err == nil {
		t.Fatal("an op with a value outside the generic model was written")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	_, events, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].F != "read" {
		t.Fatalf("after Flush read %+v, want the one read", events)
	}
}

// Every tick of the flusher hands every line written before it to the
// file, however few: what SIGKILL can lose of the schedule is bounded by the
// tick's period, history.FlushInterval (the history's own bound), and not by
// how full the buffer is.
func TestScheduleWriterFlushesEveryTick(t *testing.T) {
	path := filepath.Join(t.TempDir(), ScheduleFile)
	tick := make(chan time.Time) // unbuffered: a send returns once the loop took the tick
	w, err := newScheduleWriter(path, testHeader(), tick)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	events := func() int {
		_, events, err := ReadSchedule(path)
		if err != nil {
			t.Fatal(err)
		}
		return len(events)
	}
	for round := 1; round <= 3; round++ {
		for i := range 3 {
			op := history.Op{Time: int64(10*round + i), Process: 1, F: "read"}
			if err := w.Invoke(op, 1); err != nil {
				t.Fatal(err)
			}
		}
		if n := events(); n != 3*(round-1) {
			t.Fatalf("round %d: %d events in the file before the tick, want %d (the buffer is far from full)", round, n, 3*(round-1))
		}
		tick <- time.Time{}
		tick <- time.Time{} // taken only after the first tick's write returned
		if n := events(); n != 3*round {
			t.Fatalf("round %d: %d events in the file after a tick, want every one written before it (%d)", round, n, 3*round)
		}
	}
}

func TestWriteScheduleRoundTrip(t *testing.T) {
	_, events, err := ReadSchedule(writeRecorded(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "min.jsonl")
	if err := WriteSchedule(path, testHeader(), events[1:3]); err != nil {
		t.Fatal(err)
	}
	_, back, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		back[i].Seq = events[1+i].Seq
	}
	if !reflect.DeepEqual(back, events[1:3]) {
		t.Fatalf("got %+v\nwant %+v", back, events[1:3])
	}
}

// FuzzReadSchedule: the reader never panics, and whatever it accepts writes
// back and reads again unchanged.
func FuzzReadSchedule(f *testing.F) {
	data, err := os.ReadFile("testdata/schedule.golden.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(`{"schedule":1,"seed":"1","concurrency":1}` + "\n" + `{"t":3,"thread":-1,"process":-1,"f":"kill","value":{"a":[1.5,"NaN"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, events, err := parseSchedule(data, "fuzz")
		if err != nil {
			return
		}
		text, err := appendHeader(nil, h)
		if err != nil {
			return // a header json cannot encode (say, a year past 9999)
		}
		for i := range events {
			if text, err = appendEvent(text, &events[i]); err != nil {
				t.Fatalf("event %+v read but cannot be written: %v", events[i], err)
			}
			text = append(text, '\n')
		}
		h2, again, err := parseSchedule(text, "rewritten")
		if err != nil {
			t.Fatalf("rereading what was written: %v\n%s", err, text)
		}
		if !h2.Started.Equal(h.Started) {
			t.Fatalf("started %v became %v", h.Started, h2.Started)
		}
		h2.Started = h.Started
		if h.Nodes == nil {
			h.Nodes = []string{}
		}
		if !reflect.DeepEqual(h, h2) || !reflect.DeepEqual(events, again) {
			t.Fatalf("round trip changed the schedule:\n%+v %+v\n%+v %+v", h, events, h2, again)
		}
	})
}

// BenchmarkScheduleRecord measures the per-op cost a run pays for its
// schedule: a client invocation and its completion through Record.
func BenchmarkScheduleRecord(b *testing.B) {
	w, err := NewScheduleWriter(filepath.Join(b.TempDir(), ScheduleFile), testHeader())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	inv := history.Op{Time: 1, Process: 1, Type: history.Invoke, F: "cas", Key: "k3", Value: []any{int64(1), int64(2)}}
	ok := inv
	ok.Type = history.OK
	b.ReportAllocs()
	for b.Loop() {
		inv.Time++
		if err := w.Record(inv); err != nil {
			b.Fatal(err)
		}
		if err := w.Record(ok); err != nil {
			b.Fatal(err)
		}
	}
}

// A nemesis completion the schedule cannot encode is refused, but the client
// lines it held back are still written.
func TestScheduleRefusedNemesisReleasesHeldLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), ScheduleFile)
	w, err := NewScheduleWriter(path, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	ops := []history.Op{
		{Time: 1, Process: history.NemesisProcess, Type: history.Invoke, F: "kill"},
		{Time: 2, Process: 0, Type: history.Invoke, F: "read"},
		{Time: 3, Process: history.NemesisProcess, Type: history.Info, F: "kill", Value: struct{}{}},
	}
	for _, op := range ops[:2] {
		if err := w.Record(op); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Record(ops[2]); err == nil {
		t.Fatal("a nemesis value outside the generic model was written")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	_, events, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].F != "read" {
		t.Fatalf("read back %+v, want the held read", events)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
