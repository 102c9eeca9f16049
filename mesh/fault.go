package mesh

import (
	"maps"
	"slices"
	"sync"
	"time"
)

// Partition makes each receiver drop what the named senders send it:
// blocked[b] = [a] discards bytes a->b while b->a still flow, so one-way
// partitions work. It replaces any earlier partition. Client links are never
// cut. Connections that lost bytes in a direction this table unblocks are
// reset now; held connections whose link is now fully open are closed.
func (m *Mesh) Partition(blocked map[string][]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.partition(blocked)
}

// partition installs a table on every link. m.mu is held.
func (m *Mesh) partition(blocked map[string][]string) {
	m.table = normalize(blocked)
	for id, l := range m.links {
		l.setBlocked(blockedDirs(m.table, id))
	}
}

// Blocked returns the partition in effect, receiver -> sorted senders.
func (m *Mesh) Blocked() map[string][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string][]string, len(m.table))
	for node, peers := range m.table {
		out[node] = slices.Clone(peers)
	}
	return out
}

// Shaping is the packet-level fault set on the links into a node. The zero
// value is no fault.
type Shaping struct {
	// Latency delays every chunk of bytes into the node; Jitter adds a
	// further uniform delay in [0, Jitter]. Order within a connection is kept
	// (a chunk never overtakes the one before it).
	Latency, Jitter time.Duration
	// Bandwidth caps the bytes per second into the node, summed over all its
	// links, with a token bucket of MaxBurst bytes at most.
	Bandwidth int64
	// Loss is the probability that a connection is reset: rolled once when a
	// connection is accepted, and again for every chunk carried into the node.
	Loss float64
}

// normalized clamps values Shape cannot honour: negative durations and
// rates become zero, Loss is kept within [0, 1] (NaN is zero).
func (s Shaping) normalized() Shaping {
	s.Latency, s.Jitter, s.Bandwidth = max(s.Latency, 0), max(s.Jitter, 0), max(s.Bandwidth, 0)
	if !(s.Loss > 0) {
		s.Loss = 0
	}
	s.Loss = min(s.Loss, 1)
	return s
}

// shaper is a Shaping in force on one node, with the bucket its links share.
type shaper struct {
	s      Shaping
	bucket *bucket // nil without a bandwidth limit
}

// Shape sets s on every link into the named nodes (nil: every node added so
// far): the forward direction of links to them, including client links, and
// the return direction of links from them. A zero s removes their shaping.
// Values out of range are clamped (see Shaping).
func (m *Mesh) Shape(nodes []string, s Shaping) {
	s = s.normalized()
	m.mu.Lock()
	defer m.mu.Unlock()
	if nodes == nil {
		nodes = m.nodes
	}
	for _, n := range nodes {
		if s == (Shaping{}) {
			delete(m.shapes, n)
			continue
		}
		sh := &shaper{s: s}
		if s.Bandwidth > 0 {
			sh.bucket = newBucket(s.Bandwidth, time.Now())
		}
		m.shapes[n] = sh
	}
	m.applyShapes()
}

// applyShapes points every link direction at its receiver's shaper. m.mu
// is held.
func (m *Mesh) applyShapes() {
	for id, l := range m.links {
		l.dirs[fwd].shape.Store(m.shapes[id.To])
		l.dirs[rev].shape.Store(m.shapes[id.From])
	}
}

// Heal removes the partition and all shaping. New connections go through
// at once; connections that lost bytes are reset and held ones closed.
func (m *Mesh) Heal() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.partition(nil)
	clear(m.shapes)
	m.applyShapes()
}

// blockedDirs decides, for a link, whether its forward (From->To) and return
// (To->From) directions are dropped under table.
func blockedDirs(table map[string][]string, id Link) (f, r bool) {
	if id.From == Client {
		return false, false
	}
	return slices.Contains(table[id.To], id.From), slices.Contains(table[id.From], id.To)
}

// normalize copies a partition table with each sender list sorted, without
// duplicates or the receiver itself, and empty lists left out.
func normalize(blocked map[string][]string) map[string][]string {
	out := make(map[string][]string, len(blocked))
	for _, node := range slices.Sorted(maps.Keys(blocked)) {
		s := slices.DeleteFunc(slices.Clone(blocked[node]), func(p string) bool { return p == node })
		slices.Sort(s)
		if s = slices.Compact(s); len(s) > 0 {
			out[node] = s
		}
	}
	return out
}

// MaxBurst bounds a bandwidth bucket's burst, and so the size of one chunk
// forwarded into a bandwidth-limited node.
const MaxBurst = 32 << 10

// bucket is a token bucket in bytes that may go into debt: a chunk larger
// than the tokens left is admitted after a wait instead of being split, so
// over any interval [s, t] at most burst + rate*(t-s) bytes are admitted.
type bucket struct {
	mu     sync.Mutex
	rate   float64 // bytes per second
	burst  int     // also the largest chunk a reader asks for
	tokens float64
	last   time.Time
}

// newBucket starts full, with a burst of a twentieth of a second of rate,
// between 512 bytes and MaxBurst.
func newBucket(rate int64, now time.Time) *bucket {
	burst := int(min(max(rate/20, 512), MaxBurst))
	return &bucket{rate: float64(rate), burst: burst, tokens: float64(burst), last: now}
}

// take debits n bytes at now and returns how long the caller must wait
// before sending them.
func (b *bucket) take(now time.Time, n int) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.After(b.last) {
		b.tokens = min(float64(b.burst), b.tokens+b.rate*now.Sub(b.last).Seconds())
		b.last = now
	}
	b.tokens -= float64(n)
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}
