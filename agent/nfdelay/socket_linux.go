package nfdelay

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// queueConn is a netlink socket bound to one NFQUEUE. It is non-blocking
// and registered with Go's poller, so a read deadline stops the reader.
type queueConn struct {
	f     *os.File
	rc    syscall.RawConn
	queue uint16
}

// kernel is the netlink address of the kernel.
var kernel = &unix.SockaddrNetlink{Family: unix.AF_NETLINK}

// openQueue binds a socket to queue with metadata-only copies, waiting for
// the kernel to acknowledge each step.
func openQueue(queue uint16) (*queueConn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.NETLINK_NETFILTER)
	if err != nil {
		return nil, fmt.Errorf("nfdelay: netlink socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("nfdelay: bind netlink socket: %w", err)
	}
	// A large buffer rides out bursts; FORCE needs CAP_NET_ADMIN, which the
	// agent has anyway, and the plain option is the fallback.
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20) != nil {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 8<<20)
	}
	q := &queueConn{f: os.NewFile(uintptr(fd), "nfqueue"), queue: queue}
	if q.rc, err = q.f.SyscallConn(); err != nil {
		q.f.Close()
		return nil, fmt.Errorf("nfdelay: %w", err)
	}
	if err := q.request(appendBind(nil, 1, queue), 1); err != nil {
		q.f.Close()
		return nil, fmt.Errorf("nfdelay: bind queue %d: %w", queue, err)
	}
	if err := q.request(appendParams(nil, 2, queue, queueMaxLen), 2); err != nil {
		q.f.Close()
		return nil, fmt.Errorf("nfdelay: configure queue %d: %w", queue, err)
	}
	return q, nil
}

// request sends a config message and waits up to 5 s for its ack.
func (q *queueConn) request(b []byte, seq uint32) error {
	if err := q.send(b); err != nil {
		return err
	}
	if err := q.f.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		return err
	}
	defer q.f.SetReadDeadline(time.Time{})
	buf := make([]byte, 1<<16)
	for {
		n, err := q.recv(buf)
		if err != nil {
			return fmt.Errorf("await ack: %w", err)
		}
		acked := false
		err = eachMessage(buf[:n], func(m message) error {
			if m.typ != nlmsgError {
				return nil // no packets can be queued before the bind
			}
			errno, s, err := ackError(m.payload)
			if err != nil || s != seq {
				return err
			}
			acked = true
			if errno != 0 {
				return syscall.Errno(-errno)
			}
			return nil
		})
		if err != nil || acked {
			return err
		}
	}
}

// send writes one datagram of messages to the kernel.
func (q *queueConn) send(b []byte) error {
	var serr error
	err := q.rc.Write(func(fd uintptr) bool {
		serr = unix.Sendto(int(fd), b, 0, kernel)
		return !errors.Is(serr, unix.EAGAIN)
	})
	if err != nil {
		return err
	}
	return serr
}

// recv reads one datagram, waiting in the poller.
func (q *queueConn) recv(buf []byte) (int, error) {
	var (
		n    int
		rerr error
	)
	err := q.rc.Read(func(fd uintptr) bool {
		n, _, rerr = unix.Recvfrom(int(fd), buf, 0)
		return !errors.Is(rerr, unix.EAGAIN)
	})
	if err != nil {
		return 0, err
	}
	return n, rerr
}

// stopReading wakes and stops the reader.
func (q *queueConn) stopReading() { _ = q.f.SetReadDeadline(time.Unix(1, 0)) }

// drain hands fn every datagram already received by the socket, without
// waiting, so packets queued before the stop are accepted rather than
// dropped when the socket closes.
func (q *queueConn) drain(fn func([]byte)) {
	buf := make([]byte, 1<<16)
	_ = q.rc.Control(func(fd uintptr) {
		for {
			n, _, err := unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
			if err != nil || n == 0 {
				return
			}
			fn(buf[:n])
		}
	})
}

// close unbinds the queue; the kernel drops packets still queued to it.
func (q *queueConn) close() error { return q.f.Close() }
