package control

import (
	"context"
	"errors"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "''"},
		{"abc", "abc"},
		{"/usr/bin/etcd", "/usr/bin/etcd"},
		{"--name=n1", "--name=n1"},
		{"a,b:c@d%e+f", "a,b:c@d%e+f"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"a;b", "'a;b'"},
		{"`id`", "'`id`'"},
		{"$(id)", "'$(id)'"},
		{`back\slash`, `'back\slash'`},
		{`"dq"`, `'"dq"'`},
		{"*", "'*'"},
		{"~", "'~'"},
		{"new\nline", "'new\nline'"},
		{"'", `''\'''`},
		{"héllo", "'héllo'"},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestQuoteThroughShell checks that a real /bin/sh gives back every argument
// unchanged, for hand-picked and random strings.
func TestQuoteThroughShell(t *testing.T) {
	args := []string{"", " ", "a b", "it's", `'"'`, "$HOME", "${x:-y}", "a;b", "a|b", "a&&b", "$(id)", "`id`",
		`\`, `\\n`, "*", "?", "[a]", "~root", "#x", "!", "\t\n", "-n", "--", "é", "x=1"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(1 + r.IntN(255)) // anything but NUL
		}
		args = append(args, string(b))
	}
	out, err := exec.Command("/bin/sh", "-c", "printf '%s\\0' "+QuoteArgv(args)).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(args) {
		t.Fatalf("got %d args back, want %d", len(got), len(args))
	}
	for i := range args {
		if got[i] != args[i] {
			t.Errorf("arg %d: got %q, want %q", i, got[i], args[i])
		}
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		name string
		cmd  Cmd
		mode sudoMode
		want string
		err  string
	}{
		{name: "argv", cmd: Cmd{Argv: []string{"echo", "a b", "$x"}}, want: `echo 'a b' '$x'`},
		{name: "raw", cmd: Cmd{Raw: "echo $HOME | wc -c"}, want: "echo $HOME | wc -c"},
		{name: "dir", cmd: Cmd{Argv: []string{"ls"}, Dir: "/opt/my dir"}, want: `sh -c 'cd '\''/opt/my dir'\'' || exit 1; ls'`},
		{name: "env sorted", cmd: Cmd{Raw: "env", Env: map[string]string{"B": "2", "A": "x y"}},
			want: `sh -c 'export A='\''x y'\''; export B=2; env'`},
		{name: "env argv", cmd: Cmd{Argv: []string{"printenv", "A"}, Env: map[string]string{"B": "1", "A": "x y"}},
			want: `env A='x y' B=1 printenv A`},
		{name: "env argv0 with =", cmd: Cmd{Argv: []string{"a=b"}, Env: map[string]string{"A": "1"}},
			want: `sh -c 'export A=1; a=b'`},
		{name: "sudo env timeout argv", cmd: Cmd{Argv: []string{"id"}, Env: map[string]string{"A": "1"}, Sudo: true, Timeout: time.Second},
			mode: sudoNoPrompt, want: `sudo -n -- timeout -k 5 1 env A=1 id`},
		{name: "timeout", cmd: Cmd{Argv: []string{"sleep", "9"}, Timeout: 1500 * time.Millisecond}, want: `timeout -k 5 1.5 sleep 9`},
		{name: "tiny timeout rounds up", cmd: Cmd{Argv: []string{"true"}, Timeout: time.Microsecond}, want: `timeout -k 5 0.001 true`},
		{name: "sudo -n", cmd: Cmd{Argv: []string{"id"}, Sudo: true}, mode: sudoNoPrompt, want: `sudo -n -- id`},
		{name: "sudo user", cmd: Cmd{Argv: []string{"id"}, Sudo: true, SudoUser: "etcd"}, mode: sudoNoPrompt, want: `sudo -n -u etcd -- id`},
		{name: "sudo password", cmd: Cmd{Argv: []string{"id"}, Sudo: true}, mode: sudoStdin, want: `sudo -S -k -p '' -- id`},
		{name: "sudo skipped as root", cmd: Cmd{Argv: []string{"id"}, Sudo: true}, mode: sudoSkip, want: `id`},
		{name: "everything", cmd: Cmd{Raw: "a && b", Dir: "/d", Env: map[string]string{"K": "v"}, Sudo: true, Timeout: 2 * time.Second},
			mode: sudoNoPrompt, want: `sudo -n -- timeout -k 5 2 sh -c 'export K=v; cd /d || exit 1; a && b'`},
		{name: "empty", cmd: Cmd{}, err: "empty command"},
		{name: "both", cmd: Cmd{Argv: []string{"a"}, Raw: "b"}, err: "both"},
		{name: "nul arg", cmd: Cmd{Argv: []string{"a\x00b"}}, err: "NUL"},
		{name: "nul env", cmd: Cmd{Argv: []string{"a"}, Env: map[string]string{"K": "\x00"}}, err: "NUL"},
		{name: "bad env name", cmd: Cmd{Argv: []string{"a"}, Env: map[string]string{"A-B": "1"}}, err: "not a shell identifier"},
		{name: "env name digit first", cmd: Cmd{Argv: []string{"a"}, Env: map[string]string{"1A": "1"}}, err: "not a shell identifier"},
		{name: "negative timeout", cmd: Cmd{Argv: []string{"a"}, Timeout: -time.Second}, err: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := render(tt.cmd, tt.mode)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("render error = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			if got != tt.want {
				t.Errorf("render =\n  %s\nwant\n  %s", got, tt.want)
			}
		})
	}
}

// TestSudoerPassword checks "sudo -n first": the password goes on stdin only
// once sudo -n has been refused, and the probe runs once per node.
func TestSudoerPassword(t *testing.T) {
	tests := []struct {
		name      string
		root      bool
		password  string
		probeErr  error
		wantLine  string
		wantIn    string
		wantProbe int
	}{
		{name: "root skips sudo", root: true, password: "pw", wantLine: "id", wantIn: "in"},
		{name: "no password", wantLine: "sudo -n -- id", wantIn: "in"},
		{name: "passwordless sudo", password: "pw", wantLine: "sudo -n -- id", wantIn: "in", wantProbe: 1},
		{name: "password needed", password: "pw", probeErr: &ExitError{Exit: 1},
			wantLine: "sudo -S -k -p '' -- id", wantIn: "pw\nin", wantProbe: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sudoer{root: tt.root, password: tt.password}
			probes := 0
			run := func(_ context.Context, c Cmd) error {
				probes++
				if QuoteArgv(c.Argv) != "sudo -n true" {
					t.Errorf("probe ran %q", QuoteArgv(c.Argv))
				}
				return tt.probeErr
			}
			for range 2 {
				line, in, err := s.prepare(context.Background(), Cmd{Argv: []string{"id"}, Sudo: true, Stdin: []byte("in")}, run)
				if err != nil {
					t.Fatal(err)
				}
				if line != tt.wantLine || string(in) != tt.wantIn {
					t.Errorf("prepare = %q, stdin %q; want %q, %q", line, in, tt.wantLine, tt.wantIn)
				}
			}
			if probes != tt.wantProbe {
				t.Errorf("probe ran %d times, want %d", probes, tt.wantProbe)
			}
		})
	}
	t.Run("probe failure", func(t *testing.T) {
		s := &sudoer{password: "pw"}
		lost := errors.New("connection lost")
		_, _, err := s.prepare(context.Background(), Cmd{Argv: []string{"id"}, Sudo: true},
			func(context.Context, Cmd) error { return lost })
		if !errors.Is(err, lost) {
			t.Fatalf("err = %v, want the probe's error", err)
		}
	})
}

func TestExitErrorMessage(t *testing.T) {
	e := &ExitError{Node: "n1", Cmd: "false", Exit: 3, Stderr: []byte("\nboom\nmore\n")}
	if got, want := e.Error(), "node n1: command false exited 3: boom"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e = &ExitError{Node: "n1", Cmd: "sleep 9", Exit: 124, TimedOut: true}
	if !errors.Is(e, ErrTimeout) || !strings.Contains(e.Error(), "timed out") {
		t.Errorf("timed-out ExitError: %v, Is(ErrTimeout)=%v", e, errors.Is(e, ErrTimeout))
	}
	e = &ExitError{Node: "n1", Cmd: "x", Exit: 137, Signal: "KILL"}
	if errors.Is(e, ErrTimeout) || !strings.Contains(e.Error(), "signal KILL") {
		t.Errorf("signalled ExitError: %v", e)
	}
}

func TestCapBuffer(t *testing.T) {
	c := capBuffer{limit: 10}
	for _, chunk := range []string{"1234", "5678", "9abc", "def"} {
		if n, err := c.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if string(c.buf) != "123456789a" || !c.dropped {
		t.Fatalf("kept %q, dropped=%v; want the first 10 bytes, true", c.buf, c.dropped)
	}
	var d capBuffer
	d.Write([]byte("x"))
	if string(d.buf) != "x" || d.dropped {
		t.Fatalf("default limit: kept %q, dropped=%v", d.buf, d.dropped)
	}
}
