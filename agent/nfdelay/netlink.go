package nfdelay

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// nfnetlink_queue protocol numbers (linux/netfilter/nfnetlink_queue.h).
const (
	subsysQueue = 3 // NFNL_SUBSYS_QUEUE: the high byte of the message type

	msgPacket  = 0 // NFQNL_MSG_PACKET: kernel -> agent, one queued packet
	msgVerdict = 1 // NFQNL_MSG_VERDICT: agent -> kernel
	msgConfig  = 2 // NFQNL_MSG_CONFIG

	attrPacketHdr  = 1 // NFQA_PACKET_HDR: packet id (be32), hw protocol, hook
	attrVerdictHdr = 2 // NFQA_VERDICT_HDR: verdict (be32), packet id (be32)

	cfgCmd      = 1 // NFQA_CFG_CMD
	cfgParams   = 2 // NFQA_CFG_PARAMS: copy range (be32), copy mode (u8)
	cfgQueueMax = 3 // NFQA_CFG_QUEUE_MAXLEN (be32)

	cmdBind  = 1 // NFQNL_CFG_CMD_BIND
	copyMeta = 1 // NFQNL_COPY_META: no payload, only metadata

	verdictAccept = 1 // NF_ACCEPT

	nlmsgError = 2 // NLMSG_ERROR
	nlmsgDone  = 3 // NLMSG_DONE

	nlmFRequest = 0x1 // NLM_F_REQUEST
	nlmFAck     = 0x4 // NLM_F_ACK

	nlmsgHdrLen = 16 // struct nlmsghdr
	nfgenLen    = 4  // struct nfgenmsg
	nlaHdrLen   = 4  // struct nlattr
	nlaTypeMask = 0x3fff
)

// The netlink and attribute headers are in host byte order; nfnetlink
// payloads (ids, verdicts, lengths inside attributes) are big-endian.
var (
	host = binary.NativeEndian
	be   = binary.BigEndian
)

// errMalformed wraps every decoding failure, so callers can count them
// apart from socket errors.
var errMalformed = errors.New("malformed netlink message")

// message is one netlink message; payload follows the 16-byte header.
type message struct {
	typ     uint16
	flags   uint16
	seq     uint32
	payload []byte
}

// nextMessage splits the first netlink message off b. Messages are padded
// to 4 bytes; the last one's padding may be missing.
func nextMessage(b []byte) (message, []byte, error) {
	if len(b) < nlmsgHdrLen {
		return message{}, nil, fmt.Errorf("%w: %d bytes, shorter than a header", errMalformed, len(b))
	}
	n := int(host.Uint32(b[0:]))
	if n < nlmsgHdrLen || n > len(b) {
		return message{}, nil, fmt.Errorf("%w: length %d with %d bytes left", errMalformed, n, len(b))
	}
	m := message{typ: host.Uint16(b[4:]), flags: host.Uint16(b[6:]), seq: host.Uint32(b[8:]), payload: b[nlmsgHdrLen:n]}
	return m, b[min(align(n), len(b)):], nil
}

// eachMessage calls fn for every message in a datagram, stopping at the
// first malformed one or at fn's first error.
func eachMessage(b []byte, fn func(message) error) error {
	for len(b) > 0 {
		m, rest, err := nextMessage(b)
		if err != nil {
			return err
		}
		if err := fn(m); err != nil {
			return err
		}
		b = rest
	}
	return nil
}

// isPacket reports whether m is a queued packet from the kernel.
func (m message) isPacket() bool { return m.typ == subsysQueue<<8|msgPacket }

// packetID returns the id of the queued packet in an NFQNL_MSG_PACKET
// payload: the first field of its NFQA_PACKET_HDR attribute.
func packetID(payload []byte) (uint32, error) {
	if len(payload) < nfgenLen {
		return 0, fmt.Errorf("%w: packet payload of %d bytes", errMalformed, len(payload))
	}
	for a := payload[nfgenLen:]; len(a) >= nlaHdrLen; {
		n := int(host.Uint16(a[0:]))
		if n < nlaHdrLen || n > len(a) {
			return 0, fmt.Errorf("%w: attribute length %d with %d bytes left", errMalformed, n, len(a))
		}
		if host.Uint16(a[2:])&nlaTypeMask == attrPacketHdr {
			if n < nlaHdrLen+4 {
				return 0, fmt.Errorf("%w: packet header attribute of %d bytes", errMalformed, n)
			}
			return be.Uint32(a[nlaHdrLen:]), nil
		}
		a = a[min(align(n), len(a)):]
	}
	return 0, fmt.Errorf("%w: packet without a packet header attribute", errMalformed)
}

// ackError decodes an NLMSG_ERROR payload: the errno (0 for an ack, else
// negative) and the sequence number of the request it answers.
func ackError(payload []byte) (errno int32, seq uint32, err error) {
	if len(payload) < 4+nlmsgHdrLen {
		return 0, 0, fmt.Errorf("%w: error message of %d bytes", errMalformed, len(payload))
	}
	return int32(host.Uint32(payload[0:])), host.Uint32(payload[4+8:]), nil
}

// appendHeader appends a netlink header and nfgenmsg for a queue message
// whose attributes total attrLen bytes.
func appendHeader(dst []byte, typ, flags uint16, seq uint32, queue uint16, attrLen int) []byte {
	dst = host.AppendUint32(dst, uint32(nlmsgHdrLen+nfgenLen+attrLen))
	dst = host.AppendUint16(dst, subsysQueue<<8|typ)
	dst = host.AppendUint16(dst, flags)
	dst = host.AppendUint32(dst, seq)
	dst = host.AppendUint32(dst, 0)    // port id: the kernel
	dst = append(dst, 0, 0)            // nfgenmsg: AF_UNSPEC, NFNETLINK_V0
	return be.AppendUint16(dst, queue) // res_id: the queue number
}

// appendAttr appends one attribute, padded to 4 bytes.
func appendAttr(dst []byte, typ uint16, data ...byte) []byte {
	dst = host.AppendUint16(dst, uint16(nlaHdrLen+len(data)))
	dst = host.AppendUint16(dst, typ)
	dst = append(dst, data...)
	for range align(len(data)) - len(data) {
		dst = append(dst, 0)
	}
	return dst
}

// appendBind appends the request binding the socket to queue, with an ack.
func appendBind(dst []byte, seq uint32, queue uint16) []byte {
	dst = appendHeader(dst, msgConfig, nlmFRequest|nlmFAck, seq, queue, nlaHdrLen+4)
	return appendAttr(dst, cfgCmd, cmdBind, 0, 0, 0) // command, pad, pf (unused)
}

// appendParams appends the request for metadata-only copies and a queue
// of at most maxLen packets, with an ack.
func appendParams(dst []byte, seq uint32, queue uint16, maxLen uint32) []byte {
	dst = appendHeader(dst, msgConfig, nlmFRequest|nlmFAck, seq, queue, align(nlaHdrLen+5)+nlaHdrLen+4)
	dst = appendAttr(dst, cfgParams, 0, 0, 0, 0, copyMeta) // copy range 0
	var n [4]byte
	be.PutUint32(n[:], maxLen)
	return appendAttr(dst, cfgQueueMax, n[:]...)
}

// appendVerdict appends an NF_ACCEPT verdict for packet id, without an ack.
func appendVerdict(dst []byte, seq uint32, queue uint16, id uint32) []byte {
	dst = appendHeader(dst, msgVerdict, nlmFRequest, seq, queue, nlaHdrLen+8)
	var v [8]byte
	be.PutUint32(v[0:], verdictAccept)
	be.PutUint32(v[4:], id)
	return appendAttr(dst, attrVerdictHdr, v[:]...)
}

// verdictLen is the size of one appendVerdict message.
const verdictLen = nlmsgHdrLen + nfgenLen + nlaHdrLen + 8

func align(n int) int { return (n + 3) &^ 3 }
