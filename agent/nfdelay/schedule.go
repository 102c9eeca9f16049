package nfdelay

import (
	"math/rand/v2"
	"time"
)

// held is one packet waiting for its verdict. Times are nanoseconds on the
// agent's monotonic clock (since Run started).
type held struct {
	due, arrived int64
	seq          uint64 // arrival order: breaks ties so equal due times keep it
	id           uint32
}

// schedule is a min-heap of held packets by (due, seq). It is a plain
// slice heap rather than container/heap, so pushing allocates nothing once
// the slice has grown and no value is boxed.
type schedule struct {
	items []held
	seq   uint64
}

// push holds packet id, which arrived at now, until due.
func (s *schedule) push(id uint32, now, due int64) {
	s.seq++
	s.items = append(s.items, held{due: due, arrived: now, seq: s.seq, id: id})
	for i := len(s.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s.items[i], s.items[p] = s.items[p], s.items[i]
		i = p
	}
}

// next returns the earliest due time; ok is false when nothing is held.
func (s *schedule) next() (due int64, ok bool) {
	if len(s.items) == 0 {
		return 0, false
	}
	return s.items[0].due, true
}

// pop removes and returns the earliest packet; the schedule must not be
// empty.
func (s *schedule) pop() held {
	top := s.items[0]
	last := len(s.items) - 1
	s.items[0] = s.items[last]
	s.items = s.items[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && s.less(l, m) {
			m = l
		}
		if r < last && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s.items[i], s.items[m] = s.items[m], s.items[i]
		i = m
	}
	return top
}

func (s *schedule) less(i, j int) bool {
	a, b := &s.items[i], &s.items[j]
	return a.due < b.due || a.due == b.due && a.seq < b.seq
}

func (s *schedule) len() int { return len(s.items) }

// sampler draws each packet's delay: Delay plus a uniform offset in
// [-Jitter, +Jitter], never below zero.
type sampler struct {
	delay, jitter int64
	rng           *rand.Rand
}

func newSampler(delay, jitter time.Duration, seed uint64) sampler {
	return sampler{delay: int64(delay), jitter: int64(jitter), rng: rand.New(rand.NewPCG(seed, 0x6e66646c))}
}

func (s sampler) draw() int64 {
	if s.jitter <= 0 {
		return s.delay
	}
	return max(0, s.delay-s.jitter+s.rng.Int64N(2*s.jitter+1))
}
