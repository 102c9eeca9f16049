package redismod

import (
	"bufio"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestAppendCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "*1\r\n$4\r\nPING\r\n"},
		{[]string{"SET", "k", ""}, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"},
		{[]string{"SET", "a\r\nb", "ü"}, "*3\r\n$3\r\nSET\r\n$4\r\na\r\nb\r\n$2\r\nü\r\n"},
	} {
		if got := string(AppendCommand(nil, tc.args)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestReadReply(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     any
		err      string // substring of the error; "" for none
	}{
		{"simple", "+OK\r\n", "OK", ""},
		{"error", "-NOREPLICAS Not enough good replicas to write.\r\n", &RespError{"NOREPLICAS Not enough good replicas to write."}, ""},
		{"integer", ":-42\r\n", int64(-42), ""},
		{"bulk", "$5\r\nhe\r\no\r\n", "he\r\no", ""},
		{"empty bulk", "$0\r\n\r\n", "", ""},
		{"null bulk", "$-1\r\n", nil, ""},
		{"null array", "*-1\r\n", nil, ""},
		{"empty array", "*0\r\n", []any{}, ""},
		{"nested", "*3\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n-ERR x\r\n", []any{int64(1), []any{"a", nil}, &RespError{"ERR x"}}, ""},
		{"bad integer", ":x\r\n", nil, "bad integer"},
		{"bad length", "$x\r\n", nil, "bad length"},
		{"negative length", "$-2\r\n", nil, "out of range"},
		{"huge array", "*99999999\r\n", nil, "out of range"},
		{"bulk without crlf", "$1\r\nab\r\n", nil, "not followed by CRLF"},
		{"short bulk", "$10\r\nab", nil, "connection closed by the server"},
		{"bare newline", "+OK\n", nil, "not ended by CRLF"},
		{"unknown type", "!oops\r\n", nil, "unknown reply type"},
		{"empty line", "\r\n", nil, "empty line"},
		{"eof", "", nil, "connection closed by the server"},
		{"truncated array", "*2\r\n:1\r\n", nil, "connection closed by the server"},
		{"too deep", strings.Repeat("*1\r\n", maxDepth+1) + ":1\r\n", nil, "nested deeper"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadReply(bufio.NewReader(strings.NewReader(tc.in)))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestRespErrorKind(t *testing.T) {
	for msg, want := range map[string]string{"READONLY You can't write": "READONLY", "ERR": "ERR", "": ""} {
		if got := (&RespError{msg}).Kind(); got != want {
			t.Errorf("%q: kind %q, want %q", msg, got, want)
		}
	}
}

// FuzzReadReply: any input either parses into the reply types the
// adapter converts, or is an error; no panic, no unbounded allocation.
// A parsed reply re-encoded and parsed again is the same reply.
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "-ERR x\r\n", ":1\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*2\r\n:1\r\n$1\r\na\r\n", "*-1\r\n", "*1\r\n*1\r\n*0\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(strings.NewReader(string(in)))
		v, err := ReadReply(r)
		if err != nil {
			return
		}
		var buf []byte
		buf = encode(t, buf, v)
		again, err := ReadReply(bufio.NewReader(strings.NewReader(string(buf))))
		if err != nil {
			t.Fatalf("re-encoded %q of %q: %v", buf, in, err)
		}
		if !reflect.DeepEqual(v, again) {
			t.Fatalf("%q parsed as %#v, re-encoded as %#v", in, v, again)
		}
	})
}

// encode writes a parsed reply back as RESP (bulk strings for strings).
func encode(t *testing.T, buf []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, "$-1\r\n"...)
	case string:
		return append(buf, ("$" + strconv.Itoa(len(x)) + "\r\n" + x + "\r\n")...)
	case int64:
		return append(buf, (":" + strconv.FormatInt(x, 10) + "\r\n")...)
	case *RespError:
		if strings.Contains(x.Message, "\n") {
			t.Fatalf("error message %q holds a newline", x.Message)
		}
		return append(buf, ("-" + x.Message + "\r\n")...)
	case []any:
		buf = append(buf, ("*" + strconv.Itoa(len(x)) + "\r\n")...)
		for _, e := range x {
			buf = encode(t, buf, e)
		}
		return buf
	}
	t.Fatal(errors.New("unexpected reply type"))
	return nil
}
