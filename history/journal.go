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

const (
	// flushInterval is how often the background goroutine writes buffered ops;
	// half a second keeps "at least every second" true with room for a slow write.
	flushInterval = 500 * time.Millisecond
	// journalChunk is how much buffered text makes Append write at once.
	journalChunk = 32 << 10
	// opsChunk is how many ops each block of the in-memory copy holds. Blocks
	// never move, so a long run does not copy its whole history each time the
	// storage grows.
	opsChunk = 4096
)

// Journal is the crash-safe JSONL history a run writes as it goes. Appends are
// buffered and reach the file (the OS, not necessarily the disk) on Flush, when
// the buffer fills, and at least every second from a background goroutine.
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
	go j.flushLoop()
	return j, nil
}

func (j *Journal) flushLoop() {
	defer close(j.done)
	t := time.NewTicker(flushInterval)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
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
