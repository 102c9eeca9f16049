// Package binkv is a tiny key-value store with a length-prefixed binary
// protocol: the system under test of examples/binkv, whose suite drives it
// through the Starlark net and binary modules. One node is the primary and
// keeps the data, appending every change to a log it fsyncs before it
// answers; the others forward each request to it over a peer connection,
// so the primary's reachability is what partitions test.
//
// Wire format (all integers big-endian): every message is a 4-byte length
// and a payload. A request's payload is an opcode byte (1 get, 2 put,
// 3 cas), a 2-byte key length and the key, then for put the value (int64)
// and for cas the expected and the new value (int64 each). A response's
// payload is a status byte and a body:
//
//	0 ok          get: the value (int64); put, cas: empty
//	1 not found   get of a key never written
//	2 mismatch    cas whose expected value was not the current one
//	3 unavailable the request was not applied (the primary was unreachable
//	              before it was sent); body: a message
//	4 unknown     forwarded, then the primary's answer was lost; body: a message
//	5 bad request body: a message
//
// The --bug cas-blind switch makes cas skip its comparison: a planted
// bug the suite must find.
package binkv

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Opcodes and statuses of the protocol.
const (
	OpGet, OpPut, OpCas = 1, 2, 3

	StatusOK, StatusNotFound, StatusMismatch, StatusUnavailable, StatusUnknown, StatusBad = 0, 1, 2, 3, 4, 5
)

// maxFrame bounds a message.
const maxFrame = 1 << 20

// Main runs one node until ctx ends: `faultline binkv-node --listen ADDR
// --dir DIR [--primary ADDR] [--bug cas-blind]`. Without --primary the
// node is the primary.
func Main(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("binkv-node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "address to serve on")
	dir := fs.String("dir", "", "directory of the primary's log")
	primary := fs.String("primary", "", "the primary's address; empty: this node is the primary")
	bug := fs.String("bug", "", "a planted bug: cas-blind")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *listen == "" {
		return errors.New("binkv-node: --listen is required")
	}
	if *bug != "" && *bug != "cas-blind" {
		return fmt.Errorf("binkv-node: unknown bug %q (want cas-blind)", *bug)
	}
	s := &server{primary: *primary, casBlind: *bug == "cas-blind", data: map[string]int64{}}
	if *primary == "" {
		if *dir == "" {
			return errors.New("binkv-node: the primary needs --dir")
		}
		if err := s.openLog(filepath.Join(*dir, "kv.log")); err != nil {
			return err
		}
		defer s.log.Close()
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("binkv-node: %w", err)
	}
	fmt.Fprintf(stderr, "binkv-node: serving on %s (primary %q, bug %q)\n", *listen, *primary, *bug)
	go func() { <-ctx.Done(); l.Close() }()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("binkv-node: accept: %w", err)
		}
		go s.serve(c)
	}
}

type server struct {
	primary  string
	casBlind bool

	mu   sync.Mutex
	data map[string]int64
	log  *os.File
}

// openLog replays the log into memory and opens it for appending.
func (s *server) openLog(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("binkv-node: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("binkv-node: %w", err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			break // a torn last line: the write it held was never acknowledged
		}
		s.data[k] = n
	}
	s.log = f
	return nil
}

// serve answers the requests of one connection in order.
func (s *server) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	var upstream net.Conn // a follower's connection to the primary
	var up *bufio.Reader
	defer func() {
		if upstream != nil {
			upstream.Close()
		}
	}()
	for {
		req, err := readFrame(r)
		if err != nil {
			return
		}
		var resp []byte
		if s.primary == "" {
			resp = s.apply(req)
		} else {
			if upstream == nil {
				if upstream, err = net.DialTimeout("tcp", s.primary, time.Second); err != nil {
					upstream = nil
					resp = reply(StatusUnavailable, "primary unreachable: "+err.Error())
				} else {
					up = bufio.NewReader(upstream)
				}
			}
			if upstream != nil {
				resp = s.forward(upstream, up, req)
				if resp[0] == StatusUnknown || resp[0] == StatusUnavailable {
					upstream.Close()
					upstream = nil
				}
			}
		}
		if err := writeFrame(c, resp); err != nil {
			return
		}
	}
}

// forward sends req to the primary and returns its answer.
func (s *server) forward(c net.Conn, r *bufio.Reader, req []byte) []byte {
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if err := writeFrame(c, req); err != nil {
		return reply(StatusUnknown, "forward: "+err.Error())
	}
	resp, err := readFrame(r)
	if err != nil {
		return reply(StatusUnknown, "forward: "+err.Error())
	}
	return resp
}

// apply runs one request on the primary.
func (s *server) apply(req []byte) []byte {
	if len(req) < 3 {
		return reply(StatusBad, "short request")
	}
	op, klen := req[0], int(binary.BigEndian.Uint16(req[1:3]))
	if len(req) < 3+klen {
		return reply(StatusBad, "key runs past the request")
	}
	key, rest := string(req[3:3+klen]), req[3+klen:]
	if strings.ContainsAny(key, " \n") {
		return reply(StatusBad, "key has a space or newline")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case op == OpGet && len(rest) == 0:
		v, ok := s.data[key]
		if !ok {
			return []byte{StatusNotFound}
		}
		return binary.BigEndian.AppendUint64([]byte{StatusOK}, uint64(v))
	case op == OpPut && len(rest) == 8:
		return s.set(key, int64(binary.BigEndian.Uint64(rest)))
	case op == OpCas && len(rest) == 16:
		from, to := int64(binary.BigEndian.Uint64(rest)), int64(binary.BigEndian.Uint64(rest[8:]))
		if v, ok := s.data[key]; !s.casBlind && (!ok || v != from) {
			return []byte{StatusMismatch}
		}
		return s.set(key, to)
	}
	return reply(StatusBad, fmt.Sprintf("opcode %d with %d bytes of arguments", op, len(rest)))
}

// set logs and fsyncs a change before it is applied and acknowledged.
func (s *server) set(key string, v int64) []byte {
	if _, err := fmt.Fprintf(s.log, "%s %d\n", key, v); err != nil {
		return reply(StatusUnknown, "log: "+err.Error())
	}
	if err := s.log.Sync(); err != nil {
		return reply(StatusUnknown, "fsync: "+err.Error())
	}
	s.data[key] = v
	return []byte{StatusOK}
}

func reply(status byte, msg string) []byte { return append([]byte{status}, msg...) }

func readFrame(r *bufio.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	p := make([]byte, n)
	_, err := io.ReadFull(r, p)
	return p, err
}

func writeFrame(w io.Writer, p []byte) error {
	_, err := w.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p))))
	if err == nil {
		_, err = w.Write(p)
	}
	return err
}
