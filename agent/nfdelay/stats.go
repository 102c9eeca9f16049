package nfdelay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
)

// Stats is what the agent reports in its stats file, the landing evidence
// of a delay fault.
type Stats struct {
	PID      int    `json:"pid"`
	Queue    uint16 `json:"queue"`
	DelayNS  int64  `json:"delay_ns"`  // configured delay
	JitterNS int64  `json:"jitter_ns"` // configured jitter
	Running  bool   `json:"running"`   // false in the last write, at exit

	Seen        uint64 `json:"seen"`          // packets received from the queue
	Delayed     uint64 `json:"delayed"`       // packets accepted after their delay
	Flushed     uint64 `json:"flushed"`       // packets accepted early because the agent was stopping
	Held        int    `json:"held"`          // packets waiting when written
	MeanDelayNS int64  `json:"mean_delay_ns"` // mean of the delays actually applied (arrival to verdict) to Delayed packets
	MaxDelayNS  int64  `json:"max_delay_ns"`
	Errors      uint64 `json:"errors"` // socket errors, kernel overruns and malformed messages
	LastError   string `json:"last_error,omitempty"`
}

// ParseStats decodes a stats file and rejects contents no agent writes.
func ParseStats(b []byte) (Stats, error) {
	var s Stats
	if err := json.Unmarshal(b, &s); err != nil {
		return Stats{}, fmt.Errorf("parse nfdelay stats: %w", err)
	}
	if s.PID <= 0 || s.DelayNS < 0 || s.JitterNS < 0 || s.Held < 0 || s.MeanDelayNS < 0 || s.MaxDelayNS < s.MeanDelayNS {
		return Stats{}, fmt.Errorf("parse nfdelay stats: inconsistent values in %s", b)
	}
	if s.Delayed+s.Flushed > s.Seen {
		return Stats{}, fmt.Errorf("parse nfdelay stats: %d delayed and %d flushed of %d seen", s.Delayed, s.Flushed, s.Seen)
	}
	return s, nil
}

// counters are updated by the reader and the releaser concurrently and
// read by the stats writer.
type counters struct {
	seen, delayed, flushed, errors atomic.Uint64
	delaySum, delayMax             atomic.Int64
	held                           atomic.Int64
	lastError                      atomic.Pointer[string]
}

func (c *counters) fail(err error) {
	c.errors.Add(1)
	s := err.Error()
	c.lastError.Store(&s)
}

// released records a verdict given d nanoseconds after the packet arrived.
func (c *counters) released(d int64, early bool) {
	if early {
		c.flushed.Add(1)
		return
	}
	c.delayed.Add(1)
	c.delaySum.Add(d)
	for m := c.delayMax.Load(); d > m && !c.delayMax.CompareAndSwap(m, d); m = c.delayMax.Load() {
	}
}

func (c *counters) snapshot(cfg Config, running bool) Stats {
	s := Stats{PID: os.Getpid(), Queue: cfg.Queue, DelayNS: int64(cfg.Delay), JitterNS: int64(cfg.Jitter), Running: running,
		Delayed: c.delayed.Load(), Flushed: c.flushed.Load(), Held: int(c.held.Load()),
		MaxDelayNS: c.delayMax.Load(), Errors: c.errors.Load()}
	// Read seen last: a packet counted as released was seen before.
	s.Seen = c.seen.Load()
	if s.Delayed > 0 {
		s.MeanDelayNS = c.delaySum.Load() / int64(s.Delayed)
		s.MaxDelayNS = max(s.MaxDelayNS, s.MeanDelayNS) // the two loads are not one snapshot
	}
	if p := c.lastError.Load(); p != nil {
		s.LastError = *p
	}
	return s
}

// writeStats replaces path with s atomically (a temporary file in the same
// directory, then rename), so a reader never sees a partial file.
func writeStats(path string, s Stats) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode stats: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".nfdelay-stats-*")
	if err != nil {
		return fmt.Errorf("write stats: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write stats %s: %w", path, err)
	}
	return nil
}
