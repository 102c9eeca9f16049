package history

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestJournalConcurrentAppends(t *testing.T) {
	const workers, each = 8, 500
	path := filepath.Join(t.TempDir(), "history.jsonl")
	j, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	indices := make([][]int64, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				op, err := j.Append(Op{Process: w, Type: Invoke, F: "write", Value: []any{int64(w), int64(i)}})
				if err != nil {
					t.Error(err)
					return
				}
				indices[w] = append(indices[w], op.Index)
			}
		})
	}
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	seen := make([]bool, workers*each)
	for _, idx := range indices {
		for _, i := range idx {
			if i < 0 || int(i) >= len(seen) || seen[i] {
				t.Fatalf("index %d handed out twice or out of range", i)
			}
			seen[i] = true
		}
	}
	file, err := ReadFile(path, Auto)
	if err != nil {
		t.Fatal(err)
	}
	if file.Format != JSONL || file.TruncatedTail {
		t.Errorf("format %s, truncated %v", file.Format, file.TruncatedTail)
	}
	// Ops still works after Close: the run checks it afterwards.
	assertSameOps(t, file.Ops, j.Ops())
	for i, op := range file.Ops {
		if op.Index != int64(i) {
			t.Fatalf("line %d holds index %d", i+1, op.Index)
		}
	}
}

func TestJournalFlushAndOps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	j, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	want := fixtureOps()
	for i, op := range want {
		op.Index = 99 // Append assigns the index, whatever the caller set
		got, err := j.Append(op)
		if err != nil {
			t.Fatal(err)
		}
		if got.Index != int64(i) {
			t.Fatalf("op %d got index %d", i, got.Index)
		}
	}
	ops := j.Ops()
	assertSameOps(t, ops, want)
	ops[0].F = "changed"
	if j.Ops()[0].F != "read" {
		t.Error("Ops returned the journal's own slice, not a copy")
	}
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	file, err := ReadFile(path, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	assertSameOps(t, file.Ops, jsonViewOps(want))
}

// TestJournalBackgroundFlush: an op reaches the file without Flush or Close.
func TestJournalBackgroundFlush(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	j, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(Op{Process: 1, Type: Invoke, F: "read"}); err != nil {
		t.Fatal(err)
	}
	// The flusher runs every half second; the deadline only bounds a broken one.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasSuffix(data, []byte("\n")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background flusher never wrote the op")
		}
	}
}

func TestJournalErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "history.jsonl")
	j, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Create: error = %v, want fs.ErrExist", err)
	}
	if _, err := Create(filepath.Join(dir, "missing", "h.jsonl")); err == nil {
		t.Error("Create in a missing directory succeeded")
	}

	// A refused op takes no index.
	if _, err := j.Append(Op{Process: 1, Type: "done"}); err == nil || !strings.Contains(err.Error(), `invalid op type "done"`) {
		t.Errorf("bad type: error = %v", err)
	}
	if _, err := j.Append(Op{Process: 1, Type: OK, Extra: map[string]any{"index": int64(3)}}); !errors.Is(err, errReservedExtra) {
		t.Errorf("reserved Extra key: error = %v", err)
	}
	if op, err := j.Append(Op{Process: 1, Type: Invoke}); err != nil || op.Index != 0 {
		t.Errorf("first good op: index %d, error %v; want 0, nil", op.Index, err)
	}

	// A failing file: the op is still recorded, and the error is reported and sticks.
	j.f.Close()
	if err := j.Flush(); err == nil {
		t.Error("Flush to a closed file succeeded")
	}
	if op, err := j.Append(Op{Process: 1, Type: OK}); err == nil || op.Index != 1 {
		t.Errorf("append after a write error: index %d, error %v; want 1 and the error", op.Index, err)
	}
	if n := len(j.Ops()); n != 2 {
		t.Errorf("journal holds %d ops, want 2", n)
	}
	if err := j.Close(); err == nil {
		t.Error("Close hid the write error")
	}

	for name, err := range map[string]error{
		"Append": func() error { _, err := j.Append(Op{Type: OK}); return err }(),
		"Flush":  j.Flush(),
		"Close":  j.Close(),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: error = %v, want ErrClosed", name, err)
		}
	}
}

// journalChildEnv makes the test binary, re-executed by
// TestJournalSurvivesKill, append to the named journal until it is killed.
const journalChildEnv = "FAULTLINE_HISTORY_JOURNAL_CHILD"

// TestJournalSurvivesKill runs a child process that appends from several
// goroutines, SIGKILLs it mid-stream, and checks that everything complete in
// the file parses, in order, with the right contents.
func TestJournalSurvivesKill(t *testing.T) {
	if path := os.Getenv(journalChildEnv); path != "" {
		appendUntilKilled(path)
		return
	}
	const workers = 4
	path := filepath.Join(t.TempDir(), "history.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestJournalSurvivesKill$", "-test.count=1")
	cmd.Env = append(os.Environ(), journalChildEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Let it write a few megabytes: many chunk writes, some mid-flight at the kill.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if fi, err := os.Stat(path); err == nil && fi.Size() >= 4<<20 {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the child exited early (%v); its output:\n%s", err, stderr.Bytes())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the child wrote too little in a minute; its output:\n%s", stderr.Bytes())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-exited
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, not by SIGKILL; its output:\n%s", err, stderr.Bytes())
	}

	file, err := ReadFile(path, Auto)
	if err != nil {
		t.Fatal(err)
	}
	if file.Format != JSONL || len(file.Ops) == 0 {
		t.Fatalf("read %d ops as %s", len(file.Ops), file.Format)
	}
	next := make([]int64, workers)
	for i, op := range file.Ops {
		if op.Index != int64(i) {
			t.Fatalf("line %d holds index %d", i+1, op.Index)
		}
		want := childOp(op.Process, next[op.Process])
		want.Index = op.Index
		assertSameOps(t, []Op{op}, jsonViewOps([]Op{want}))
		next[op.Process]++
	}
	t.Logf("%d ops survived the kill (torn last line: %v)", len(file.Ops), file.TruncatedTail)
}

// childOp is the seq'th op worker w appends: its contents vary in length so
// lines straddle write boundaries.
func childOp(w int, seq int64) Op {
	return Op{Time: seq, Process: w, Type: OK, F: "append", Key: fmt.Sprintf("k%d", seq%7),
		Value: []any{int64(w), seq, strings.Repeat("x", int(seq%97))}}
}

func appendUntilKilled(path string) {
	j, err := Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for w := range 4 {
		go func() {
			for seq := int64(0); ; seq++ {
				if _, err := j.Append(childOp(w, seq)); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
			}
		}()
	}
	select {} // until SIGKILL
}

// Every tick of the flusher hands every line appended before it to the
// file, however few: what SIGKILL can lose is bounded by the tick's period,
// FlushInterval, and not by how full the buffer is.
func TestJournalFlushesEveryTick(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	tick := make(chan time.Time) // unbuffered: a send returns once the loop took the tick
	j, err := create(path, tick)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	lines := func() int {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(data, []byte("\n"))
	}
	for round := 1; round <= 3; round++ {
		for i := range 3 {
			if _, err := j.Append(childOp(0, int64(3*round+i))); err != nil {
				t.Fatal(err)
			}
		}
		if n := lines(); n != 3*(round-1) {
			t.Fatalf("round %d: %d lines in the file before the tick, want %d (the buffer is far from full)", round, n, 3*(round-1))
		}
		tick <- time.Time{}
		tick <- time.Time{} // taken only after the first tick's write returned
		if n := lines(); n != 3*round {
			t.Fatalf("round %d: %d lines in the file after a tick, want every one appended before it (%d)", round, n, 3*round)
		}
	}
	if FlushInterval > 50*time.Millisecond {
		t.Errorf("FlushInterval %s: the documented bound on what SIGKILL loses is 50ms at most", FlushInterval)
	}
}

// BenchmarkJournalFlushInterval appends at full rate from 4 goroutines
// with the flusher ticking at FlushInterval and at the old 500ms, in the
// same run, so their ns/op compare directly.
func BenchmarkJournalFlushInterval(b *testing.B) {
	for _, d := range []time.Duration{500 * time.Millisecond, FlushInterval} {
		b.Run(d.String(), func(b *testing.B) {
			t := time.NewTicker(d)
			defer t.Stop()
			j, err := create(filepath.Join(b.TempDir(), "history.jsonl"), t.C)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			op := contractOp()
			b.ReportAllocs()
			b.SetParallelism(1)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := j.Append(op); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func BenchmarkJournalAppend(b *testing.B) {
	j, err := Create(filepath.Join(b.TempDir(), "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	op := contractOp()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := j.Append(op); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
