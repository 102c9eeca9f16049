package nfdelay

import (
	"bytes"
	"errors"
	"testing"
)

// kernelPacket builds an NFQNL_MSG_PACKET as the kernel sends it in
// metadata-only mode: a packet header attribute, then others.
func kernelPacket(id uint32, queue uint16, extra ...[]byte) []byte {
	hdr := append(be.AppendUint32(nil, id), 0x08, 0x00, 1) // id, IPv4, NF_INET_LOCAL_IN
	attrs := appendAttr(nil, attrPacketHdr, hdr...)
	for _, e := range extra {
		attrs = append(attrs, e...)
	}
	return append(appendHeader(nil, msgPacket, 0, 0, queue, len(attrs)), attrs...)
}

// ack builds the kernel's NLMSG_ERROR answer to request seq.
func ack(seq uint32, errno int32) []byte {
	b := host.AppendUint32(nil, nlmsgHdrLen+4+nlmsgHdrLen)
	b = host.AppendUint16(b, nlmsgError)
	b = host.AppendUint16(b, 0)
	b = host.AppendUint32(b, 0) // seq
	b = host.AppendUint32(b, 0) // port
	b = host.AppendUint32(b, uint32(errno))
	return append(b, appendHeader(nil, msgConfig, nlmFRequest|nlmFAck, seq, 0, 0)[:nlmsgHdrLen]...)
}

func TestPacketIDs(t *testing.T) {
	mark := appendAttr(nil, 3, 0, 0, 0, 7) // NFQA_MARK before the header would be skipped
	tests := []struct {
		name    string
		in      []byte
		want    []uint32
		wantErr bool
	}{
		{"one", kernelPacket(42, 1), []uint32{42}, false},
		{"batch", append(kernelPacket(1, 1), kernelPacket(0xfffffffe, 1)...), []uint32{1, 0xfffffffe}, false},
		{"header after another attribute", func() []byte {
			attrs := append(append([]byte{}, mark...), appendAttr(nil, attrPacketHdr, 0, 0, 0, 9, 8, 0, 1)...)
			return append(appendHeader(nil, msgPacket, 0, 0, 1, len(attrs)), attrs...)
		}(), []uint32{9}, false},
		{"nested flag ignored in type", func() []byte {
			attrs := appendAttr(nil, attrPacketHdr|0x4000, 0, 0, 0, 5, 8, 0, 1)
			return append(appendHeader(nil, msgPacket, 0, 0, 1, len(attrs)), attrs...)
		}(), []uint32{5}, false},
		{"ack is not a packet", ack(3, 0), nil, false},
		{"empty", nil, nil, false},
		{"short header", []byte{1, 2, 3}, nil, true},
		{"length beyond buffer", kernelPacket(1, 1)[:20], nil, true},
		{"length below header", append([]byte{4, 0, 0, 0}, make([]byte, 12)...), nil, true},
		{"no packet header", append(appendHeader(nil, msgPacket, 0, 0, 1, len(mark)), mark...), nil, true},
		{"truncated packet header", func() []byte {
			attrs := appendAttr(nil, attrPacketHdr, 0, 0)
			return append(appendHeader(nil, msgPacket, 0, 0, 1, len(attrs)), attrs...)
		}(), nil, true},
		{"attribute length overruns", func() []byte {
			attrs := []byte{200, 0, 1, 0, 0, 0, 0, 1}
			return append(appendHeader(nil, msgPacket, 0, 0, 1, len(attrs)), attrs...)
		}(), nil, true},
		{"payload without nfgenmsg", func() []byte {
			b := host.AppendUint32(nil, nlmsgHdrLen+2)
			b = host.AppendUint16(b, subsysQueue<<8|msgPacket)
			return append(b, make([]byte, 10)...)
		}(), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ids(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, errMalformed) {
				t.Errorf("error %v does not wrap errMalformed", err)
			}
			if !tt.wantErr && !equal(got, tt.want) {
				t.Errorf("ids = %v, want %v", got, tt.want)
			}
		})
	}
}

// ids decodes every packet id in a datagram, as the agent's reader does.
func ids(b []byte) ([]uint32, error) {
	var out []uint32
	err := eachMessage(b, func(m message) error {
		if !m.isPacket() {
			return nil
		}
		id, err := packetID(m.payload)
		out = append(out, id)
		return err
	})
	return out, err
}

func equal(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAckError(t *testing.T) {
	tests := []struct {
		name      string
		in        []byte
		errno     int32
		seq       uint32
		malformed bool
	}{
		{"ack", ack(7, 0), 0, 7, false},
		{"EPERM", ack(1, -1), -1, 1, false},
		{"truncated", ack(1, 0)[:nlmsgHdrLen+8], 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, err := nextMessage(tt.in)
			if err == nil {
				var errno int32
				var seq uint32
				errno, seq, err = ackError(m.payload)
				if err == nil && (errno != tt.errno || seq != tt.seq) {
					t.Errorf("got errno %d seq %d, want %d %d", errno, seq, tt.errno, tt.seq)
				}
			}
			if (err != nil) != tt.malformed {
				t.Errorf("err = %v, want malformed %v", err, tt.malformed)
			}
		})
	}
}

// The requests the agent sends, byte for byte (little-endian host). The
// layouts follow linux/netfilter/nfnetlink_queue.h.
func TestEncode(t *testing.T) {
	if host.Uint16([]byte{1, 0}) != 1 {
		t.Skip("golden bytes are little-endian")
	}
	tests := []struct {
		name string
		got  []byte
		want []byte
	}{
		{"bind", appendBind(nil, 1, 0x0102), []byte{
			28, 0, 0, 0, 2, 3, 5, 0, 1, 0, 0, 0, 0, 0, 0, 0, // nlmsghdr: len 28, QUEUE<<8|CONFIG, REQUEST|ACK, seq 1
			0, 0, 1, 2, // nfgenmsg: AF_UNSPEC, v0, queue 0x0102 big-endian
			8, 0, 1, 0, 1, 0, 0, 0, // NFQA_CFG_CMD: BIND
		}},
		{"params", appendParams(nil, 2, 1, 65535), []byte{
			40, 0, 0, 0, 2, 3, 5, 0, 2, 0, 0, 0, 0, 0, 0, 0,
			0, 0, 0, 1,
			9, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, // NFQA_CFG_PARAMS: range 0, COPY_META, padded
			8, 0, 3, 0, 0, 0, 0xff, 0xff, // NFQA_CFG_QUEUE_MAXLEN
		}},
		{"verdict", appendVerdict(nil, 3, 1, 0x0a0b0c0d), []byte{
			32, 0, 0, 0, 1, 3, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0,
			0, 0, 0, 1,
			12, 0, 2, 0, 0, 0, 0, 1, 0x0a, 0x0b, 0x0c, 0x0d, // NFQA_VERDICT_HDR: NF_ACCEPT, id
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !bytes.Equal(tt.got, tt.want) {
				t.Errorf("got  % x\nwant % x", tt.got, tt.want)
			}
		})
	}
	if n := len(appendVerdict(nil, 0, 0, 0)); n != verdictLen {
		t.Errorf("verdict is %d bytes, verdictLen says %d", n, verdictLen)
	}
}

// Decoding never panics and never reads past a message's bounds, whatever
// the kernel (or a fuzzer) sends.
func FuzzDecode(f *testing.F) {
	f.Add(kernelPacket(1, 1))
	f.Add(append(kernelPacket(1, 1), ack(2, -16)...))
	f.Add([]byte{})
	f.Add([]byte{255, 255, 255, 255, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		orig := bytes.Clone(b)
		_ = eachMessage(b, func(m message) error {
			if len(m.payload) > len(b) {
				t.Fatalf("payload of %d bytes from a %d-byte datagram", len(m.payload), len(b))
			}
			if m.isPacket() {
				_, err := packetID(m.payload)
				return err
			}
			_, _, err := ackError(m.payload)
			return err
		})
		if !bytes.Equal(b, orig) {
			t.Fatal("decoding modified its input")
		}
	})
}
