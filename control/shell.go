package control

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Quote returns s as a single POSIX shell word. Words made only of characters
// no shell treats specially are returned unchanged, which keeps logged command
// lines readable; anything else is single-quoted. NUL cannot be passed through
// a shell at all: Cmd rendering rejects it before Quote is reached.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if plainWord(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func plainWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("_@%+=:,./-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// QuoteArgv quotes every element of argv and joins them with spaces.
func QuoteArgv(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Quote(a))
	}
	return b.String()
}

// sudoMode says how a Cmd with Sudo set is wrapped.
type sudoMode int

const (
	sudoSkip     sudoMode = iota // already root: sudo would be a no-op (and may be absent)
	sudoNoPrompt                 // sudo -n: fail instead of prompting
	sudoStdin                    // sudo -S -k: the password comes first on stdin
)

// render turns c into the command line a POSIX shell runs. A bare Argv or Raw
// is sent unchanged; sudo and timeout(1) wrap the command; Env and Dir go
// through env(1) for an argv, or an inner sh -c when a shell is needed anyway
// (raw command lines, cd).
func render(c Cmd, mode sudoMode) (string, error) {
	var body string
	switch {
	case c.Raw != "" && len(c.Argv) > 0:
		return "", errors.New("command has both Argv and Raw")
	case c.Raw != "":
		body = c.Raw
	case len(c.Argv) > 0:
		body = QuoteArgv(c.Argv)
	default:
		return "", errors.New("empty command")
	}
	if err := checkNUL(c); err != nil {
		return "", err
	}
	if c.Timeout < 0 {
		return "", fmt.Errorf("negative timeout %s", c.Timeout)
	}
	sudo := c.Sudo && mode != sudoSkip
	if len(c.Env) == 0 && c.Dir == "" && c.Timeout == 0 && !sudo {
		return body, nil
	}
	names := slices.Sorted(maps.Keys(c.Env))
	for _, k := range names {
		if !shellName(k) {
			return "", fmt.Errorf("environment variable name %q is not a shell identifier", k)
		}
	}
	var b strings.Builder
	if sudo {
		if mode == sudoStdin {
			b.WriteString("sudo -S -k -p '' ")
		} else {
			b.WriteString("sudo -n ")
		}
		if c.SudoUser != "" {
			fmt.Fprintf(&b, "-u %s ", Quote(c.SudoUser))
		}
		b.WriteString("-- ")
	}
	if c.Timeout > 0 {
		fmt.Fprintf(&b, "timeout -k %s %s ", seconds(killGrace), seconds(c.Timeout))
	}
	if c.Raw == "" && c.Dir == "" && !strings.Contains(c.Argv[0], "=") {
		// An argv needs no shell: env(1) sets the variables and each
		// wrapper execs the next program.
		if len(names) > 0 {
			b.WriteString("env ")
			for _, k := range names {
				b.WriteString(k + "=" + Quote(c.Env[k]) + " ")
			}
		}
		b.WriteString(body)
		return b.String(), nil
	}
	var inner strings.Builder
	for _, k := range names {
		fmt.Fprintf(&inner, "export %s=%s; ", k, Quote(c.Env[k]))
	}
	if c.Dir != "" {
		fmt.Fprintf(&inner, "cd %s || exit 1; ", Quote(c.Dir))
	}
	inner.WriteString(body)
	b.WriteString("sh -c ")
	b.WriteString(Quote(inner.String()))
	return b.String(), nil
}

// seconds formats d for timeout(1), rounded up to the millisecond so a tiny
// timeout never becomes 0 (which would disable it).
func seconds(d time.Duration) string {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
}

func checkNUL(c Cmd) error {
	has := func(s string) bool { return strings.IndexByte(s, 0) >= 0 }
	for i, a := range c.Argv {
		if has(a) {
			return fmt.Errorf("argument %d contains a NUL byte", i)
		}
	}
	if has(c.Raw) || has(c.Dir) || has(c.SudoUser) {
		return errors.New("command, directory or sudo user contains a NUL byte")
	}
	for k, v := range c.Env {
		if has(v) {
			return fmt.Errorf("environment variable %s contains a NUL byte", k)
		}
	}
	return nil
}

func shellName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !(i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// sudoer decides how one node's Remote wraps sudo: not at all when it already
// is root, sudo -n when no password is known or none is needed, and the
// password on stdin only after sudo -n was refused once (so a password is
// never fed to a command whose sudo did not ask for it).
type sudoer struct {
	root     bool
	password string       // default when Cmd.SudoPassword is empty
	needPass atomic.Int32 // 0 unknown, 1 sudo -n works, 2 password needed
}

// prepare renders c and returns the stdin to send with it. run executes the
// sudo -n probe when a password is known but not yet known to be needed.
func (s *sudoer) prepare(ctx context.Context, c Cmd, run func(context.Context, Cmd) error) (string, []byte, error) {
	mode := sudoSkip
	pass := c.SudoPassword
	if pass == "" {
		pass = s.password
	}
	if c.Sudo && !(s.root && (c.SudoUser == "" || c.SudoUser == "root")) {
		mode = sudoNoPrompt
		if pass != "" {
			if s.needPass.Load() == 0 {
				err := run(ctx, sudoProbe)
				var ee *ExitError
				switch {
				case err == nil:
					s.needPass.Store(1)
				case errors.As(err, &ee):
					s.needPass.Store(2)
				default:
					return "", nil, fmt.Errorf("probe sudo -n: %w", err)
				}
			}
			if s.needPass.Load() == 2 {
				mode = sudoStdin
			}
		}
	}
	line, err := render(c, mode)
	if err != nil {
		return "", nil, err
	}
	if mode != sudoStdin {
		return line, c.Stdin, nil
	}
	in := make([]byte, 0, len(pass)+1+len(c.Stdin))
	in = append(append(append(in, pass...), '\n'), c.Stdin...)
	return line, in, nil
}

// sudoProbe is the command whose success shows sudo needs no password.
var sudoProbe = Cmd{Argv: []string{"sudo", "-n", "true"}}
