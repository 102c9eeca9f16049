package redismod

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The RESP2 codec, plain Go: commands go out as arrays of bulk strings
// and replies come back as one of
//
//	string     simple string (+OK) or bulk string ($3 foo)
//	nil        null bulk ($-1) or null array (*-1)
//	int64      integer (:42)
//	[]any      array (*2 ...), elements of these same types
//	*RespError error (-ERR ...)
//
// A server error is a value, not a Go error: the connection is still in
// step with the server after one. A Go error from ReadReply means the
// stream can no longer be trusted.

// Limits a reply must stay within, so a corrupt or hostile peer cannot
// make the client allocate without bound.
const (
	maxBulk  = 512 << 20 // Redis's own proto-max-bulk-len default
	maxArray = 1 << 20   // elements in one array
	maxDepth = 32        // nested arrays
	maxLine  = 64 << 10  // a simple string, error or integer line
)

// RespError is an error reply from the server, such as
// "NOREPLICAS Not enough good replicas to write.".
type RespError struct {
	Message string
}

// Error returns the server's message.
func (e *RespError) Error() string { return e.Message }

// Kind is the message's first word ("ERR", "READONLY", "NOREPLICAS"):
// Redis's error code.
func (e *RespError) Kind() string {
	k, _, _ := strings.Cut(e.Message, " ")
	return k
}

// AppendCommand appends args as one RESP array of bulk strings.
func AppendCommand(buf []byte, args []string) []byte {
	buf = append(buf, '*')
	buf = strconv.AppendInt(buf, int64(len(args)), 10)
	buf = append(buf, '\r', '\n')
	for _, a := range args {
		buf = append(buf, '$')
		buf = strconv.AppendInt(buf, int64(len(a)), 10)
		buf = append(buf, '\r', '\n')
		buf = append(buf, a...)
		buf = append(buf, '\r', '\n')
	}
	return buf
}

// ErrProtocol marks a reply that is not valid RESP2.
var ErrProtocol = errors.New("redis protocol error")

// ReadReply reads one complete reply.
func ReadReply(r *bufio.Reader) (any, error) {
	return readReply(r, 0)
}

func readReply(r *bufio.Reader, depth int) (any, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	if len(line) == 0 {
		return nil, fmt.Errorf("%w: empty line", ErrProtocol)
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return string(body), nil
	case '-':
		return &RespError{Message: string(body)}, nil
	case ':':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: bad integer %q", ErrProtocol, body)
		}
		return n, nil
	case '$':
		n, err := length(body, maxBulk)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, unexpectedEOF(err)
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return nil, fmt.Errorf("%w: bulk string of %d bytes not followed by CRLF", ErrProtocol, n)
		}
		return string(buf[:n]), nil
	case '*':
		n, err := length(body, maxArray)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, nil
		}
		if depth >= maxDepth {
			return nil, fmt.Errorf("%w: arrays nested deeper than %d", ErrProtocol, maxDepth)
		}
		// Grow as elements arrive: a header alone must not allocate a
		// million slots.
		var elems []any
		for i := 0; i < n; i++ {
			v, err := readReply(r, depth+1)
			if err != nil {
				return nil, err
			}
			elems = append(elems, v)
		}
		if elems == nil {
			elems = []any{}
		}
		return elems, nil
	default:
		return nil, fmt.Errorf("%w: unknown reply type %q", ErrProtocol, line[0])
	}
}

// length parses a bulk or array length: -1 is null, anything else below
// zero or above max is a protocol error.
func length(body []byte, max int) (int, error) {
	n, err := strconv.Atoi(string(body))
	switch {
	case err != nil:
		return 0, fmt.Errorf("%w: bad length %q", ErrProtocol, body)
	case n == -1:
		return -1, nil
	case n < 0 || n > max:
		return 0, fmt.Errorf("%w: length %d out of range", ErrProtocol, n)
	}
	return n, nil
}

// readLine reads one CRLF-terminated line without its CRLF.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("%w: line longer than %d bytes", ErrProtocol, maxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		break
	}
	n := len(line)
	if n < 2 || line[n-2] != '\r' {
		return nil, fmt.Errorf("%w: line not ended by CRLF", ErrProtocol)
	}
	return line[:n-2], nil
}

// unexpectedEOF names an EOF for what it is to a client that sent a
// command: the server closed the connection before its reply was complete.
func unexpectedEOF(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("connection closed by the server: %w", io.ErrUnexpectedEOF)
	}
	return err
}
