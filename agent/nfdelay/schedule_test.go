package nfdelay

import (
	"testing"
	"time"
)

// Packets leave in due order; equal due times keep arrival order.
func TestScheduleOrder(t *testing.T) {
	tests := []struct {
		name string
		dues []int64 // packet i arrives i-th with this due time
		want []uint32
	}{
		{"constant delay keeps arrival order", []int64{100, 101, 102, 103}, []uint32{0, 1, 2, 3}},
		{"equal due times keep arrival order", []int64{5, 5, 5, 5, 5}, []uint32{0, 1, 2, 3, 4}},
		{"jitter reorders", []int64{30, 10, 20, 10, 0}, []uint32{4, 1, 3, 2, 0}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s schedule
			for i, d := range tt.dues {
				s.push(uint32(i), int64(i), d)
			}
			var got []uint32
			for s.len() > 0 {
				got = append(got, s.pop().id)
			}
			if !equal(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
			if _, ok := s.next(); ok {
				t.Error("next reports a packet in an empty schedule")
			}
		})
	}
}

// A long interleaving of pushes and pops always pops the minimum.
func TestScheduleHeap(t *testing.T) {
	var s schedule
	smp := newSampler(50, 50, 1)
	last := int64(-1)
	for i := range 10000 {
		s.push(uint32(i), 0, int64(i/10)+smp.draw())
		if i%3 == 0 {
			due, _ := s.next()
			p := s.pop()
			if p.due != due {
				t.Fatalf("pop %d, next said %d", p.due, due)
			}
		}
	}
	for s.len() > 0 {
		p := s.pop()
		if p.due < last {
			t.Fatalf("popped %d after %d", p.due, last)
		}
		last = p.due
	}
}

func TestSampler(t *testing.T) {
	tests := []struct {
		name          string
		delay, jitter time.Duration
		lo, hi        int64
	}{
		{"no jitter", 100 * time.Millisecond, 0, int64(100 * time.Millisecond), int64(100 * time.Millisecond)},
		{"jitter", 100 * time.Millisecond, 10 * time.Millisecond, int64(90 * time.Millisecond), int64(110 * time.Millisecond)},
		{"jitter beyond delay clamps at zero", time.Millisecond, 5 * time.Millisecond, 0, int64(6 * time.Millisecond)},
		{"zero", 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSampler(tt.delay, tt.jitter, 7)
			seenLo, seenHi := int64(1<<62), int64(-1)
			for range 20000 {
				d := s.draw()
				if d < tt.lo || d > tt.hi {
					t.Fatalf("draw %v outside [%v, %v]", time.Duration(d), time.Duration(tt.lo), time.Duration(tt.hi))
				}
				seenLo, seenHi = min(seenLo, d), max(seenHi, d)
			}
			// The whole range is used: within 1% of each end.
			if span := tt.hi - tt.lo; seenLo-tt.lo > span/100 || tt.hi-seenHi > span/100 {
				t.Errorf("draws span [%v, %v], want about [%v, %v]", time.Duration(seenLo), time.Duration(seenHi), time.Duration(tt.lo), time.Duration(tt.hi))
			}
		})
	}
	a, b := newSampler(time.Second, time.Second, 3), newSampler(time.Second, time.Second, 3)
	for range 100 {
		if a.draw() != b.draw() {
			t.Fatal("the same seed gave different delays")
		}
	}
}
