package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
)

// DefaultExecTimeout bounds one exec op when Exec.Timeout is zero: the
// node's timeout(1) stops the command, so a hung one cannot outlive the run.
const DefaultExecTimeout = 10 * time.Second

// Exec is a client that runs a command per operation on the node the
// worker is bound to, through that node's control.Remote (SSH on real
// nodes, a local process on --local nodes), so a suite can drive a system
// through its own command-line tool.
//
// The protocol, in both directions JSON as history.jsonl writes it:
//
//   - stdin: the op as one JSON object, {"f", "key" (only when the op has
//     one), "value", "process", "node"} and, when Service is set, "addr":
//     the host:port the client dials for that node's service (through the
//     proxy mesh on --local nodes, so partitions cut it). FAULTLINE_NODE and
//     FAULTLINE_ADDR carry the same in the environment. Stdin rather than
//     arguments: values of any shape and size need no quoting.
//   - exit 0: stdout is the completion. An object with a "type" key
//     ("ok", "fail" or "info", with optional "value", "error" and "extra",
//     an object of more fields to record on the op) is taken as is; any
//     other JSON value is the value of an ok completion; empty stdout is ok keeping the invocation's value (a write). Stdout that is
//     not JSON, or an object with other keys beside type, is info: the
//     command ran, so the op may have taken effect.
//   - exit 1: fail, a definite failure (the command says the op did not
//     take effect); the error is the "error" of a JSON object on stdout,
//     else the first line of stderr.
//   - any other exit, a signal, the timeout, or a connection lost while
//     the command ran: info, since its effect is unknown.
//   - the node could not be reached before the command was sent: fail.
type Exec struct {
	Argv    []string          // the command and its arguments, run on the node
	Env     map[string]string // extra environment (names must be shell identifiers)
	Dir     string            // working directory on the node ("" = the remote's default)
	Timeout time.Duration     // per op; 0 is DefaultExecTimeout
	// Service and Port, when Service is set, name the node's service whose
	// client address is given to the command as "addr".
	Service string
	Port    int
}

var (
	_ Client        = (*Exec)(nil)
	_ PoolStarter   = (*Exec)(nil)
	_ RetryReporter = (*Exec)(nil)
)

// Validate checks the configuration, so a bad script fails at load time.
func (e *Exec) Validate() error {
	return validateCommand(e.Argv, e.Timeout, e.Service, e.Port, e.Env)
}

// validateCommand checks what a client that runs a command (client.exec,
// client.process) is given: a command, a timeout that is not negative, a
// service's port in range, environment names a shell accepts.
func validateCommand(argv []string, timeout time.Duration, service string, port int, env map[string]string) error {
	if len(argv) == 0 || argv[0] == "" {
		return errors.New("argv must name a command")
	}
	if timeout < 0 {
		return fmt.Errorf("timeout %s is negative", timeout)
	}
	if service != "" && (port < 1 || port > 65535) {
		return fmt.Errorf("port %d for service %q is out of range 1..65535", port, service)
	}
	for k := range env {
		if !isShellName(k) {
			return fmt.Errorf("env name %q is not a shell identifier", k)
		}
	}
	return nil
}

// isShellName reports whether s is a shell variable name.
func isShellName(s string) bool {
	for i, r := range s {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// String implements Client: the client as a scenario declares it. The
// environment's values are left out (a suite may pass a password there).
func (e *Exec) String() string {
	return commandClientString("client.exec", e.Argv, e.Timeout, DefaultExecTimeout, e.Service, e.Port)
}

// commandClientString spells a client that runs a command (client.exec,
// client.process) as a scenario declares it: argv, and timeout and
// service only when they differ from the defaults.
func commandClientString(name string, argv []string, timeout, def time.Duration, service string, port int) string {
	var b strings.Builder
	b.WriteString(name + "(argv=[")
	for i, a := range argv {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", a)
	}
	b.WriteString("]")
	if timeout != 0 && timeout != def {
		fmt.Fprintf(&b, ", timeout=%q", timeout.String())
	}
	if service != "" {
		fmt.Fprintf(&b, ", service=%q, port=%d", service, port)
	}
	b.WriteString(")")
	return b.String()
}

// Simulated implements Client: the command talks to a real system.
func (e *Exec) Simulated() bool { return false }

// Retries implements RetryReporter: each op runs the command once; a
// command that retries inside itself must say so in its own output.
func (e *Exec) Retries() (hidden bool, how string) {
	return false, "client.exec runs the command once per op and never retries it"
}

// Start implements Client: an exec client runs on nodes, which only a run
// with nodes has.
func (e *Exec) Start(uint64) (Session, error) {
	return nil, errors.New("client.exec: the run has no nodes to run the command on (give --local, --nodes or --nodes-file, or declare nodes)")
}

// StartPool implements PoolStarter.
func (e *Exec) StartPool(ctx context.Context, _ uint64, pool *control.Pool, _ io.Writer) (Session, error) {
	if pool == nil {
		return e.Start(0)
	}
	return &execSession{cfg: e, pool: pool}, nil
}

type execSession struct {
	cfg  *Exec
	pool *control.Pool
}

func (s *execSession) Open(_, _ int, node string) (Worker, error) {
	if _, ok := s.pool.Node(node); !ok {
		return nil, fmt.Errorf("client.exec: the worker is bound to %q, which is not a node of the run", node)
	}
	w := &execWorker{s: s, node: node}
	if s.cfg.Service != "" {
		addr, err := s.pool.Network().DialAddr(control.ClientEndpoint, node, s.cfg.Service, s.cfg.Port)
		if err != nil {
			return nil, fmt.Errorf("client.exec: the address of %s's %s: %w", node, s.cfg.Service, err)
		}
		w.addr = addr
	}
	return w, nil
}

func (s *execSession) Close() error { return nil }

type execWorker struct {
	s    *execSession
	node string
	addr string
}

// Invoke implements Worker.
func (w *execWorker) Invoke(ctx context.Context, op history.Op) history.Op {
	cfg := w.s.cfg
	stdin, err := execStdin(op, w.addr)
	if err != nil {
		return failWith(op, "client.exec: "+err.Error())
	}
	r, err := w.s.pool.Remote(ctx, w.node)
	if err != nil {
		// Nothing was sent.
		return failWith(op, "client.exec: "+err.Error())
	}
	env := map[string]string{"FAULTLINE_NODE": w.node}
	if w.addr != "" {
		env["FAULTLINE_ADDR"] = w.addr
	}
	for k, v := range cfg.Env {
		env[k] = v
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultExecTimeout
	}
	res, err := r.Run(ctx, control.Cmd{Argv: cfg.Argv, Env: env, Dir: cfg.Dir, Stdin: stdin, Timeout: timeout})
	return ExecCompletion(op, res, err)
}

func (w *execWorker) Close() error { return nil }

// execStdin is the op as the command reads it.
func execStdin(op history.Op, addr string) ([]byte, error) {
	m := map[string]any{"f": op.F, "value": op.Value, "process": int64(op.Process), "node": op.Node}
	if op.Key != nil {
		m["key"] = op.Key
	}
	if addr != "" {
		m["addr"] = addr
	}
	b, err := history.AppendJSONValue(nil, m)
	if err != nil {
		return nil, fmt.Errorf("the op cannot be written as JSON: %w", err)
	}
	return append(b, '\n'), nil
}

// ExecCompletion turns what the command did (its result and Run's error)
// into op's completion, by the convention Exec documents.
func ExecCompletion(op history.Op, res control.Result, runErr error) history.Op {
	var exit *control.ExitError
	switch {
	case runErr == nil:
		return execOK(op, res.Stdout)
	case errors.As(runErr, &exit) && !exit.TimedOut && exit.Signal == "" && exit.Exit == 1:
		out := op
		out.Type = history.Fail
		out.Error = execFailError(exit)
		return out
	case errors.As(runErr, &exit):
		return execInfo(op, describeExit(exit))
	default:
		// Lost connection, cancelled op, a remote that broke mid-command:
		// the command may have run.
		return execInfo(op, runErr.Error())
	}
}

// execOK reads stdout of a command that exited 0.
func execOK(op history.Op, stdout []byte) history.Op {
	text := bytes.TrimSpace(stdout)
	out := op
	out.Type = history.OK
	if len(text) == 0 {
		return out // the invocation's value is kept
	}
	v, err := history.ParseJSONValue(text)
	if err != nil {
		return execInfo(op, fmt.Sprintf("exit 0, but stdout is not JSON (%v): %s", err, execAbbrev(string(text))))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		out.Value = v
		return out
	}
	typ, has := obj["type"]
	if !has {
		out.Value = v
		return out
	}
	for k := range obj {
		if k != "type" && k != "value" && k != "error" && k != "extra" {
			return execInfo(op, fmt.Sprintf("exit 0, but the completion has key %q; keys are type, value, error and extra", k))
		}
	}
	name, _ := typ.(string)
	t, ok := history.Outcome(name)
	if !ok {
		return execInfo(op, fmt.Sprintf("exit 0, but the completion's type is %v; want \"ok\", \"fail\" or \"info\"", typ))
	}
	out.Type = t
	if val, ok := obj["value"]; ok {
		out.Value = val
	}
	if e, ok := obj["error"]; ok {
		out.Error = e
	}
	if x, ok := obj["extra"]; ok && x != nil {
		m, isMap := x.(map[string]any)
		if !isMap {
			return execInfo(op, fmt.Sprintf("exit 0, but the completion's extra is %s; want an object of field name to value", execAbbrev(history.FormatEDN(x))))
		}
		var err error
		if out, err = history.WithExtra(out, m); err != nil {
			return execInfo(op, "exit 0, but the completion's "+err.Error())
		}
	}
	return out
}

// execFailError is a failed command's error: the "error" of a JSON object
// it printed, else its first line of stderr, else its exit status.
func execFailError(e *control.ExitError) any {
	if v, err := history.ParseJSONValue(bytes.TrimSpace(e.Stdout)); err == nil {
		if obj, ok := v.(map[string]any); ok && obj["error"] != nil {
			return obj["error"]
		}
	}
	if line := execFirstLine(e.Stderr); line != "" {
		return line
	}
	return "exit 1"
}

// describeExit says how a command ended whose effect is unknown.
func describeExit(e *control.ExitError) string {
	var how string
	switch {
	case e.TimedOut:
		how = "timed out"
	case e.Signal != "":
		how = "killed by signal " + e.Signal
	default:
		how = fmt.Sprintf("exit %d", e.Exit)
	}
	if line := execFirstLine(e.Stderr); line != "" {
		how += ": " + line
	}
	return how + " (outcome unknown)"
}

func execInfo(op history.Op, msg string) history.Op {
	op.Type = history.Info
	op.Error = "client.exec: " + msg
	return op
}

// execFirstLine is the first non-empty line of b, abbreviated.
func execFirstLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return execAbbrev(l)
		}
	}
	return ""
}

func execAbbrev(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
