package mesh_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/faultline/faultline/mesh"
)

// benchBlock is what one benchmark round trip carries.
const benchBlock = 1 << 20

// startAckSink reads benchBlock bytes at a time and acknowledges each with
// one byte, so the sender measures bytes that arrived, not bytes buffered.
func startAckSink(b *testing.B) string {
	return serveTCP(b, func(c net.Conn) {
		buf := make([]byte, benchBlock)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			if _, err := c.Write([]byte{1}); err != nil {
				return
			}
		}
	})
}

// block sends one block and waits for its acknowledgement.
func block(b *testing.B, c net.Conn, data, ack []byte) time.Duration {
	start := time.Now()
	if _, err := c.Write(data); err != nil {
		b.Fatal(err)
	}
	if _, err := io.ReadFull(c, ack); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkLink moves blocks alternately over a direct loopback connection
// and through one mesh link, in the same run, and reports both rates and
// their ratio.
func BenchmarkLink(b *testing.B) {
	sink := startAckSink(b)
	m := mesh.New(mesh.Options{})
	b.Cleanup(func() { m.Close() })
	if err := m.Add("n1", "sink", sink); err != nil {
		b.Fatal(err)
	}
	addr, err := m.Addr(mesh.Client, "n1", "sink")
	if err != nil {
		b.Fatal(err)
	}
	direct, err := net.Dial("tcp", sink)
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()
	proxied, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer proxied.Close()
	data, ack := make([]byte, benchBlock), make([]byte, 1)
	var tDirect, tMesh time.Duration
	b.SetBytes(2 * benchBlock)
	for b.Loop() {
		tDirect += block(b, direct, data, ack)
		tMesh += block(b, proxied, data, ack)
	}
	mb := float64(b.N) * benchBlock / (1 << 20)
	b.ReportMetric(mb/tDirect.Seconds(), "direct-MiB/s")
	b.ReportMetric(mb/tMesh.Seconds(), "mesh-MiB/s")
	b.ReportMetric(tDirect.Seconds()/tMesh.Seconds(), "mesh/direct")
}
