package history

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"
)

// ErrClosed is returned by a Journal used after Close.
var ErrClosed = errors.New("history: journal is closed")

// FlushInterval bounds what a controller killed with SIGKILL can lose of
// the history: every op appended more than FlushInterval ago has been
// handed to the OS (the page cache survives the process; only a crash of
// the machine itself can lose more). The background flusher writes the
// buffered lines every FlushInterval, and Append writes at once whenever
// journalChunk bytes are waiting, so at full rate the window is shorter
// still. At 10 ms the flusher costs an idle run 100 wake-ups a second and
// a busy one nothing measurable: BenchmarkJournalFlushInterval compares it
// with the old 500 ms at the engine's full append rate.
const FlushInterval = 10 * time.Millisecond

const (
	// journalChunk is how much buffered text makes Append write at once.
	journalChunk = 32 << 10
	// opsChunk is how many ops each block of the in-memory copy holds. Blocks
	// never move, so a long run does not copy its whole history each time the
	// storage grows.
	opsChunk = 4096
)

// Journal is the crash-safe JSONL history a run writes as it goes. Appends are
// buffered and reach the file (the OS, not necessarily the disk) on Flush, when
// the buffer fills, and at least every FlushInterval from a background
// goroutine.
// Every write carries whole lines only, so a controller killed with SIGKILL
// leaves a file whose complete lines all parse; a write that a kill cuts short
// leaves at most one partial last line, which Read drops (File.TruncatedTail).
// A Journal is safe for concurrent use.
type Journal struct {
	path string
	stop chan struct{}
	done chan struct{}

	mu     sync.Mutex
	f      *os.File
	buf    []byte
	ops    [][]Op // blocks of opsChunk ops
	n      int64  // ops appended
	err    error  // first write error; sticky
	closed bool
}

// Create creates a journal at path and starts its background flusher; Close
// stops it. Create refuses to replace an existing file, so a recorded history
// is never overwritten.
func Create(path string) (*Journal, error) {
	return create(path, nil)
}

// create is Create with the flusher driven by tick (nil: a FlushInterval
// ticker), so a test can drive it without timing.
func create(path string, tick <-chan time.Time) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create journal: %w", err)
	}
	j := &Journal{
		path: path,
		f:    f,
		buf:  make([]byte, 0, journalChunk+journalChunk/4),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	if tick == nil {
		t := time.NewTicker(FlushInterval)
		go func() { <-j.done; t.Stop() }()
		tick = t.C
	}
	go j.flushLoop(tick)
	return j, nil
}

// flushLoop writes what is buffered on every tick until Close.
func (j *Journal) flushLoop(tick <-chan time.Time) {
	defer close(j.done)
	for {
		select {
		case <-j.stop:
			return
		case <-tick:
			j.mu.Lock()
			j.writeLocked()
			j.mu.Unlock()
		}
	}
}

// Append assigns op the next index, records it and returns it with Index set.
// An op that cannot be encoded faithfully (unknown type, a value outside the
// generic model, an Extra key naming a core field) is refused and takes no
// index. If the file cannot be written, Append still records the op in memory,
// so the run can check what it saw, and returns it with the write error.
func (j *Journal) Append(op Op) (Op, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return Op{}, ErrClosed
	}
	op.Index = j.n
	n := len(j.buf)
	var err error
	if j.buf, err = appendJSONOp(j.buf, &op); err != nil {
		j.buf = j.buf[:n]
		return Op{}, fmt.Errorf("journal %s: refusing %s %q op of process %d: %w", j.path, op.Type, op.F, op.Process, err)
	}
	j.buf = append(j.buf, '\n')
	if j.n%opsChunk == 0 {
		j.ops = append(j.ops, make([]Op, 0, opsChunk))
	}
	last := &j.ops[len(j.ops)-1]
	*last = append(*last, op)
	j.n++
	if len(j.buf) >= journalChunk {
		j.writeLocked()
	}
	return op, j.err
}

// writeLocked hands the buffered lines to the OS. The caller holds j.mu.
func (j *Journal) writeLocked() {
	if len(j.buf) == 0 || j.err != nil {
		j.buf = j.buf[:0]
		return
	}
	if _, err := j.f.Write(j.buf); err != nil {
		j.err = fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.buf = j.buf[:0]
}

// Flush writes everything appended so far to the file.
func (j *Journal) Flush() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return ErrClosed
	}
	j.writeLocked()
	return j.err
}

// Close stops the background flusher, writes what is buffered, syncs the file
// to disk and closes it. Later calls return ErrClosed.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return ErrClosed
	}
	j.closed = true
	j.mu.Unlock()
	close(j.stop)
	<-j.done

	j.mu.Lock()
	defer j.mu.Unlock()
	j.writeLocked()
	err := j.err
	if serr := j.f.Sync(); serr != nil && err == nil {
		err = fmt.Errorf("journal %s: sync: %w", j.path, serr)
	}
	if cerr := j.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("journal %s: close: %w", j.path, cerr)
	}
	return err
}

// Ops returns a copy of every op appended so far, in index order. The values
// inside the ops are shared, not copied.
func (j *Journal) Ops() []Op {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Concat(j.ops...)
}
