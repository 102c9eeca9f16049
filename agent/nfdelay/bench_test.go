package nfdelay

import (
	"testing"
	"time"
)

// BenchmarkPacket is the agent's own work per packet, without the kernel:
// decode its notification, schedule it, release it and encode its verdict.
// Datagrams carry 16 notifications, as the kernel batches them under load.
func BenchmarkPacket(b *testing.B) {
	var dgram []byte
	for i := range 16 {
		dgram = append(dgram, kernelPacket(uint32(i), 1)...)
	}
	var s schedule
	smp := newSampler(100*time.Millisecond, 10*time.Millisecond, 1)
	out := make([]byte, 0, 16*verdictLen)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 16 {
		now := int64(i)
		_ = eachMessage(dgram, func(m message) error {
			id, err := packetID(m.payload)
			if err == nil {
				s.push(id, now, now+smp.draw())
			}
			return err
		})
		out = out[:0]
		for s.len() > 0 {
			p := s.pop()
			out = appendVerdict(out, uint32(p.seq), 1, p.id)
		}
	}
}
