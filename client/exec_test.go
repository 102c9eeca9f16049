package client

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
)

// TestExecCompletion: how a command's stdout, exit status and Run error
// become the completion.
func TestExecCompletion(t *testing.T) {
	exit := func(code int, stdout, stderr string) error {
		return &control.ExitError{Node: "n1", Cmd: "cmd", Exit: code, Stdout: []byte(stdout), Stderr: []byte(stderr)}
	}
	cases := []struct {
		name      string
		stdout    string
		err       error
		wantType  history.Type
		wantValue any    // compared when wantType is ok
		wantError string // substring of the error; "" = no error
	}{
		{"empty stdout: ok, the invocation's value kept", "", nil, history.OK, int64(7), ""},
		{"blank lines only", "\n  \n", nil, history.OK, int64(7), ""},
		{"bare integer", "3\n", nil, history.OK, int64(3), ""},
		{"bare float", "2.5", nil, history.OK, 2.5, ""},
		{"bare null", "null", nil, history.OK, nil, ""},
		{"bare string", `"x"`, nil, history.OK, "x", ""},
		{"bare list", `[1, [2, 3]]`, nil, history.OK, []any{int64(1), []any{int64(2), int64(3)}}, ""},
		{"object without type is a value", `{"a": 1}`, nil, history.OK, map[string]any{"a": int64(1)}, ""},
		{"completion ok with value", `{"type": "ok", "value": 4}`, nil, history.OK, int64(4), ""},
		{"completion ok without value keeps the invocation's", `{"type": "ok"}`, nil, history.OK, int64(7), ""},
		{"completion fail with error", `{"type": "fail", "error": "not found"}`, nil, history.Fail, nil, "not found"},
		{"completion info", `{"type": "info", "error": "timed out upstream"}`, nil, history.Info, nil, "timed out upstream"},
		{"completion with an unknown type", `{"type": "maybe"}`, nil, history.Info, nil, `type is maybe`},
		{"completion with an unknown key", `{"type": "ok", "valu": 1}`, nil, history.Info, nil, `key "valu"`},
		{"completion with extra fields", `{"type": "ok", "value": 4, "extra": {"seq": 9}}`, nil, history.OK, int64(4), ""},
		{"extra naming a core field", `{"type": "ok", "extra": {"node": "n2"}}`, nil, history.Info, nil, `extra field "node" names a core op field`},
		{"extra not an object", `{"type": "ok", "extra": [1]}`, nil, history.Info, nil, "extra is [1]"},
		{"stdout not JSON", "OK done", nil, history.Info, nil, "stdout is not JSON"},
		{"two JSON values", "1 2", nil, history.Info, nil, "stdout is not JSON"},
		{"exit 1 with a JSON error", "", exit(1, `{"error": "cas mismatch"}`, "ignored"), history.Fail, nil, "cas mismatch"},
		{"exit 1 with stderr", "", exit(1, "", "\nno such key\nmore"), history.Fail, nil, "no such key"},
		{"exit 1 with nothing", "", exit(1, "", ""), history.Fail, nil, "exit 1"},
		{"exit 2: unknown outcome", "", exit(2, "", "boom"), history.Info, nil, "exit 2: boom (outcome unknown)"},
		{"exit 127: command not found", "", exit(127, "", "sh: x: not found"), history.Info, nil, "exit 127"},
		{"timed out, even with exit 1", "", &control.ExitError{Exit: 1, TimedOut: true}, history.Info, nil, "timed out"},
		{"killed by a signal", "", &control.ExitError{Exit: 137, Signal: "KILL"}, history.Info, nil, "killed by signal KILL"},
		{"connection lost", "", fmt.Errorf("node n1: %w", control.ErrIndeterminate), history.Info, nil, "outcome unknown"},
		{"any other error", "", errors.New("session broke"), history.Info, nil, "session broke"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			op := history.Op{Process: 2, Type: history.Invoke, F: "write", Value: int64(7), Node: "n1"}
			got := ExecCompletion(op, control.Result{Stdout: []byte(tc.stdout)}, tc.err)
			if got.Type != tc.wantType {
				t.Fatalf("type = %s, want %s (%+v)", got.Type, tc.wantType, got)
			}
			if got.F != "write" || got.Process != 2 || got.Node != "n1" {
				t.Errorf("the op's identity changed: %+v", got)
			}
			if tc.wantType == history.OK && !reflect.DeepEqual(got.Value, tc.wantValue) {
				t.Errorf("value = %#v, want %#v", got.Value, tc.wantValue)
			}
			if strings.Contains(tc.stdout, `"seq"`) && !reflect.DeepEqual(got.Extra, map[string]any{"seq": int64(9)}) {
				t.Errorf("extra = %v, want seq 9", got.Extra)
			}
			msg := ""
			if got.Error != nil {
				msg = fmt.Sprint(got.Error)
			}
			if (tc.wantError == "") != (msg == "") || !strings.Contains(msg, tc.wantError) {
				t.Errorf("error = %q, want one containing %q", msg, tc.wantError)
			}
		})
	}
}

// TestExecStdin: the op the command reads, with key only when set and addr
// only when a service was named.
func TestExecStdin(t *testing.T) {
	cases := []struct {
		name string
		op   history.Op
		addr string
		want string
	}{
		{"no key", history.Op{F: "read", Process: 3, Node: "n2"}, "", `{"f":"read","node":"n2","process":3,"value":null}`},
		{"key and list value", history.Op{F: "cas", Key: int64(4), Value: []any{int64(1), int64(2)}, Node: "n1"}, "",
			`{"f":"cas","key":4,"node":"n1","process":0,"value":[1,2]}`},
		{"addr", history.Op{F: "write", Value: "a\"b", Node: "n1"}, "127.0.0.1:4001",
			`{"addr":"127.0.0.1:4001","f":"write","node":"n1","process":0,"value":"a\"b"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := execStdin(tc.op, tc.addr)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want+"\n" {
				t.Errorf("stdin = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestExecValidate: what client.exec refuses at load time.
func TestExecValidate(t *testing.T) {
	cases := []struct {
		name string
		e    Exec
		ok   bool
	}{
		{"command", Exec{Argv: []string{"sh", "x.sh"}}, true},
		{"no argv", Exec{}, false},
		{"empty command", Exec{Argv: []string{""}}, false},
		{"negative timeout", Exec{Argv: []string{"x"}, Timeout: -1}, false},
		{"service without a port", Exec{Argv: []string{"x"}, Service: "http"}, false},
		{"service and port", Exec{Argv: []string{"x"}, Service: "http", Port: 8080}, true},
		{"bad env name", Exec{Argv: []string{"x"}, Env: map[string]string{"A-B": "1"}}, false},
		{"env name starting with a digit", Exec{Argv: []string{"x"}, Env: map[string]string{"1A": "1"}}, false},
		{"good env name", Exec{Argv: []string{"x"}, Env: map[string]string{"_A1": "1"}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.e.Validate(); (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
