package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
)

// DefaultProcessTimeout bounds the open handshake and each op of a
// client.process when Process.Timeout is zero.
const DefaultProcessTimeout = 10 * time.Second

// processCloseGrace is how long a process may take to exit after the close
// message before it is killed.
const processCloseGrace = 2 * time.Second

// Process is a client that keeps one long-lived process per client process
// of the run, started on the machine running faultline (where Jepsen runs
// its clients too), and speaks JSON lines with it on stdin and stdout. A
// suite drives its system through the system's own client library in any
// language, with a session per worker and no process start per op.
//
// The protocol (docs/client-process.md is the
// user's reference): faultline writes one JSON object per line to the
// process's stdin and reads exactly one JSON object line from its stdout
// in reply, in order.
//
//   - {"type": "open", "node", "process", "thread", "addr" (with Service),
//     "nodes": [{"name", "addr"}...]} once, first. The reply {"type": "ok"}
//     makes the worker; any other reply, or none within the timeout, fails
//     the open (the op that needed it fails: nothing was sent) and the
//     process is killed.
//   - {"type": "invoke", "f", "key" (when set), "value", "process",
//     "node", and the invocation's extra fields} per op. The reply's "type"
//     is "ok", "fail" or "info"; "value" replaces the op's value (absent, an
//     ok op keeps the invocation's: a write); "error" is the op's error;
//     "extra", an object, holds extra fields of the completion (as in
//     client.starlark and client.exec), and so does any other key. Fields that belong to
//     the invocation (f, key, process, node, time, index, fault_epoch) may
//     be echoed unchanged, so a process can reply with the op it was given.
//   - {"type": "close"} last; stdin is then closed, and a process still
//     running after two seconds is killed.
//
// Anything else makes the op info (its outcome unknown) and kills the
// process: no reply within the timeout, the context's end, the process
// exiting, or a reply that is not such an object. The interpreter then
// opens a fresh worker (a new process, with its own open) for the thread's
// next process, as Jepsen does after a crashed client. The process's stderr
// goes to a log file per process under the run's logs (see WithLogDir),
// and its last line is quoted in the errors above.
type Process struct {
	Argv    []string          // the command and its arguments, run on this machine
	Env     map[string]string // extra environment on top of faultline's own
	Dir     string            // working directory ("" = faultline's)
	Timeout time.Duration     // the open handshake and each op; 0 is DefaultProcessTimeout
	// Service and Port, when Service is set, name the node's service whose
	// client address each process gets (as "addr", and per node in "nodes").
	Service string
	Port    int
}

var (
	_ Client        = (*Process)(nil)
	_ PoolStarter   = (*Process)(nil)
	_ RetryReporter = (*Process)(nil)
)

// Validate checks the configuration, so a bad script fails at load time.
func (p *Process) Validate() error {
	return validateCommand(p.Argv, p.Timeout, p.Service, p.Port, p.Env)
}

// String implements Client. The environment's values are left out (a suite
// may pass a password there).
func (p *Process) String() string {
	return commandClientString("client.process", p.Argv, p.Timeout, DefaultProcessTimeout, p.Service, p.Port)
}

// Simulated implements Client: the process talks to a real system.
func (p *Process) Simulated() bool { return false }

// Retries implements RetryReporter: faultline sends each op once; what the
// process's client library does inside is for the process to say.
func (p *Process) Retries() (hidden bool, how string) {
	return false, "client.process sends each op to the process once; retries inside the process's client library are its own"
}

// Start implements Client: the process is given nodes to talk to, which only
// a run with nodes has.
func (p *Process) Start(uint64) (Session, error) {
	return nil, errors.New("client.process: the run has no nodes for the process to talk to (give --local, --nodes or --nodes-file, or declare nodes)")
}

type logDirKey struct{}

// WithLogDir returns ctx carrying the directory where clients that capture
// output (client.process's stderr) write their log files; the run passes
// its artifact directory's logs/ this way to StartPool.
func WithLogDir(ctx context.Context, dir string) context.Context {
	return context.WithValue(ctx, logDirKey{}, dir)
}

// LogDir is the directory WithLogDir put in ctx, or "".
func LogDir(ctx context.Context) string {
	d, _ := ctx.Value(logDirKey{}).(string)
	return d
}

// processNode is one node as the open message names it.
type processNode struct{ name, addr string }

// StartPool implements PoolStarter.
func (p *Process) StartPool(ctx context.Context, _ uint64, pool *control.Pool, out io.Writer) (Session, error) {
	if pool == nil {
		return p.Start(0)
	}
	if out == nil {
		out = os.Stderr
	}
	s := &processSession{cfg: p, pool: pool, out: out, logDir: LogDir(ctx)}
	for _, n := range pool.Nodes() {
		pn := processNode{name: n.Name}
		if p.Service != "" {
			addr, err := pool.Network().DialAddr(control.ClientEndpoint, n.Name, p.Service, p.Port)
			if err != nil {
				return nil, fmt.Errorf("client.process: the address of %s's %s: %w", n.Name, p.Service, err)
			}
			pn.addr = addr
		}
		s.nodes = append(s.nodes, pn)
	}
	if s.logDir != "" {
		s.logDir = filepath.Join(s.logDir, "client-process")
		if err := os.MkdirAll(s.logDir, 0o755); err != nil {
			return nil, fmt.Errorf("client.process: %w", err)
		}
	}
	return s, nil
}

type processSession struct {
	cfg    *Process
	pool   *control.Pool
	out    io.Writer
	logDir string
	nodes  []processNode
}

func (s *processSession) Close() error { return nil }

func (s *processSession) timeout() time.Duration {
	if s.cfg.Timeout > 0 {
		return s.cfg.Timeout
	}
	return DefaultProcessTimeout
}

// Open implements Session: it starts the process and sends it the open
// message.
func (s *processSession) Open(thread, process int, node string) (Worker, error) {
	var addr string
	found := false
	nodes := make([]any, len(s.nodes))
	for i, n := range s.nodes {
		m := map[string]any{"name": n.name}
		if n.addr != "" {
			m["addr"] = n.addr
		}
		nodes[i] = m
		if n.name == node {
			addr, found = n.addr, true
		}
	}
	if !found {
		return nil, fmt.Errorf("client.process: the worker is bound to %q, which is not a node of the run", node)
	}
	w, err := s.start(process, node, addr)
	if err != nil {
		return nil, err
	}
	msg := map[string]any{"type": "open", "node": node, "process": int64(process), "thread": int64(thread), "nodes": nodes}
	if addr != "" {
		msg["addr"] = addr
	}
	reply, err := w.request(context.Background(), msg)
	if err != nil {
		w.kill()
		return nil, fmt.Errorf("client.process: open (process %d on %s): %w", process, node, err)
	}
	if t, _ := reply["type"].(string); t != "ok" {
		w.kill()
		why := fmt.Sprint(reply["error"])
		if reply["error"] == nil {
			why = fmt.Sprintf("the reply's type is %v, want \"ok\"", reply["type"])
		}
		return nil, fmt.Errorf("client.process: open (process %d on %s) refused: %s", process, node, why)
	}
	return w, nil
}

// start runs the command with its pipes and the goroutines that read them.
func (s *processSession) start(process int, node, addr string) (*processWorker, error) {
	cfg := s.cfg
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Env = append(os.Environ(), "FAULTLINE_NODE="+node, fmt.Sprintf("FAULTLINE_PROCESS=%d", process))
	if addr != "" {
		cmd.Env = append(cmd.Env, "FAULTLINE_ADDR="+addr)
	}
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// A killed process's children may hold its pipes open; do not wait for
	// them for ever.
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("client.process: %w", err)
	}
	// Stdout is a pipe of our own rather than StdoutPipe, so that Wait does
	// not close it under a reply the process wrote just before exiting.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("client.process: %w", err)
	}
	cmd.Stdout = stdoutW
	label := fmt.Sprintf("client.process p%d %s", process, node)
	tail := &lineTail{prefix: "[" + label + "] ", out: s.out}
	if s.logDir != "" {
		f, err := os.Create(filepath.Join(s.logDir, fmt.Sprintf("p%d-%s.stderr.log", process, node)))
		if err != nil {
			return nil, fmt.Errorf("client.process: %w", err)
		}
		tail.out, tail.prefix, tail.file = f, "", f
	}
	cmd.Stderr = tail
	err = cmd.Start()
	_ = stdoutW.Close() // the child has its copy
	if err != nil {
		_ = stdout.Close()
		tail.close()
		return nil, fmt.Errorf("client.process: start %s: %w", cfg.Argv[0], err)
	}
	w := &processWorker{cfg: cfg, timeout: s.timeout(), node: node, cmd: cmd, stdin: stdin, stdout: stdout, tail: tail,
		lines: make(chan []byte), exited: make(chan struct{}), stop: make(chan struct{})}
	go w.read(stdout)
	go func() {
		w.waitErr = cmd.Wait()
		tail.close()
		close(w.exited)
	}()
	return w, nil
}

// processWorker is one running process. Invoke and Close are called from
// the worker's goroutine only.
type processWorker struct {
	cfg     *Process
	timeout time.Duration
	node    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  *os.File // the read end of the process's stdout
	tail    *lineTail
	lines   chan []byte   // stdout lines; closed at EOF
	exited  chan struct{} // closed once the process has exited
	stop    chan struct{} // closed when the worker stops reading replies
	waitErr error         // set before exited is closed
	dead    bool          // killed: the stream is out of step or the process gone
}

// read sends each line of stdout to w.lines until EOF.
func (w *processWorker) read(r io.Reader) {
	defer close(w.lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			select {
			case w.lines <- line:
			case <-w.stop:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// request writes msg and waits for the one reply line, within the timeout.
func (w *processWorker) request(ctx context.Context, msg map[string]any) (map[string]any, error) {
	if w.dead {
		return nil, errors.New("the process is not running")
	}
	b, err := history.AppendJSONValue(nil, msg)
	if err != nil {
		return nil, fmt.Errorf("the message cannot be written as JSON: %w", err)
	}
	if _, err := w.stdin.Write(append(b, '\n')); err != nil {
		return nil, w.gone(fmt.Sprintf("writing to its stdin: %v", err))
	}
	timer := time.NewTimer(w.timeout)
	defer timer.Stop()
	select {
	case line, ok := <-w.lines:
		if !ok {
			return nil, w.gone("it closed its stdout")
		}
		v, err := history.ParseJSONValue(line)
		obj, isObj := v.(map[string]any)
		if err != nil || !isObj {
			w.kill()
			return nil, fmt.Errorf("its reply is not a JSON object on one line: %s%s", execAbbrev(strings.TrimSpace(string(line))), w.tail.suffix())
		}
		return obj, nil
	case <-timer.C:
		w.kill()
		return nil, fmt.Errorf("no reply within %s; the process was killed%s", w.timeout, w.tail.suffix())
	case <-ctx.Done():
		w.kill()
		return nil, fmt.Errorf("%v before a reply; the process was killed%s", context.Cause(ctx), w.tail.suffix())
	}
}

// gone kills the process and describes how it ended.
func (w *processWorker) gone(what string) error {
	w.kill()
	status := "it exited"
	if w.waitErr != nil {
		status = "it ended: " + w.waitErr.Error()
	}
	return fmt.Errorf("%s (%s)%s", what, status, w.tail.suffix())
}

// kill stops the process and waits for it, so its stderr is complete.
func (w *processWorker) kill() {
	if w.dead {
		return
	}
	w.dead = true
	_ = w.stdin.Close()
	_ = w.cmd.Process.Kill()
	<-w.exited
	w.release()
}

// release stops the stdout reader, which a child of the process may still
// hold open.
func (w *processWorker) release() {
	close(w.stop)
	_ = w.stdout.Close()
}

// processReserved are the op fields a reply may only echo unchanged.
var processReserved = []string{"f", "key", "process", "node", "time", "index", "fault_epoch"}

// Invoke implements Worker.
func (w *processWorker) Invoke(ctx context.Context, op history.Op) history.Op {
	msg := map[string]any{}
	for k, v := range op.Extra {
		msg[k] = v
	}
	msg["type"], msg["f"], msg["value"], msg["process"], msg["node"] = "invoke", op.F, op.Value, int64(op.Process), op.Node
	if op.Key != nil {
		msg["key"] = op.Key
	}
	reply, err := w.request(ctx, msg)
	if err != nil {
		return processInfo(op, err.Error())
	}
	return processCompletion(op, reply, w)
}

// processCompletion turns a reply into op's completion; a reply that breaks
// the protocol kills the process and makes the op info.
func processCompletion(op history.Op, reply map[string]any, w *processWorker) history.Op {
	bad := func(msg string) history.Op {
		w.kill() // first, so the stderr quoted is complete
		return processInfo(op, msg+w.tail.suffix())
	}
	name, _ := reply["type"].(string)
	t, ok := history.Outcome(name)
	if !ok {
		return bad(fmt.Sprintf("the reply's type is %v; want \"ok\", \"fail\" or \"info\"", reply["type"]))
	}
	invoked := map[string]any{"f": op.F, "key": op.Key, "process": int64(op.Process), "node": op.Node,
		"time": op.Time, "index": op.Index, "fault_epoch": int64(op.FaultEpoch)}
	out := op
	out.Type = t
	out.Extra = nil
	for k, v := range op.Extra {
		if out.Extra == nil {
			out.Extra = map[string]any{}
		}
		out.Extra[k] = v
	}
	for k, v := range reply {
		switch k {
		case "type":
		case "value":
			out.Value = v
		case "error":
			out.Error = v
		case "extra":
			// The spelling client.starlark and client.exec use: an
			// object of extra fields, merged like top-level ones.
			m, isMap := v.(map[string]any)
			if !isMap {
				return bad(fmt.Sprintf("the reply's extra is %s; want an object of field name to value", history.FormatEDN(v)))
			}
			var err error
			if out, err = history.WithExtra(out, m); err != nil {
				return bad("the reply's " + err.Error())
			}
		default:
			if isReserved(k) {
				if !history.Equal(v, invoked[k]) && !(k == "key" && v == nil && op.Key == nil) {
					return bad(fmt.Sprintf("the reply changes %q, which belongs to the invocation (%v, not %v)", k, invoked[k], v))
				}
				continue
			}
			if out.Extra == nil {
				out.Extra = map[string]any{}
			}
			out.Extra[k] = v
		}
	}
	return out
}

func isReserved(k string) bool {
	for _, r := range processReserved {
		if k == r {
			return true
		}
	}
	return false
}

func processInfo(op history.Op, msg string) history.Op {
	op.Type = history.Info
	op.Error = "client.process: " + msg + " (outcome unknown)"
	return op
}

// Close implements Worker: the close message, then stdin closed, then a
// kill if the process is still running after the grace period.
func (w *processWorker) Close() error {
	if w.dead {
		return nil
	}
	if b, err := history.AppendJSONValue(nil, map[string]any{"type": "close"}); err == nil {
		_, _ = w.stdin.Write(append(b, '\n'))
	}
	_ = w.stdin.Close()
	// Stop reading replies: a process that writes on close is not blocked
	// by a full pipe, since the read end closes.
	w.release()
	select {
	case <-w.exited:
	case <-time.After(processCloseGrace):
		_ = w.cmd.Process.Kill()
		<-w.exited
	}
	w.dead = true
	return nil
}

// lineTail passes a process's stderr to out (a log file, or the run's
// output with prefix on each line) and remembers its last line for errors.
type lineTail struct {
	mu     sync.Mutex
	prefix string
	out    io.Writer
	file   *os.File
	part   []byte // the unfinished line
	last   string // the last complete non-empty line
}

func (t *lineTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, p...)
	for {
		i := strings.IndexByte(string(t.part), '\n')
		if i < 0 {
			break
		}
		line := string(t.part[:i])
		t.part = t.part[i+1:]
		t.emit(line)
	}
	return len(p), nil
}

func (t *lineTail) emit(line string) {
	if s := strings.TrimSpace(line); s != "" {
		t.last = s
	}
	if t.out != nil {
		fmt.Fprintf(t.out, "%s%s\n", t.prefix, line)
	}
}

// close flushes an unfinished line and closes the log file.
func (t *lineTail) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.part) > 0 {
		t.emit(string(t.part))
		t.part = nil
	}
	if t.file != nil {
		_ = t.file.Close()
		t.file = nil
		t.out = nil
	}
}

// suffix quotes the last stderr line for an error message, or is empty.
func (t *lineTail) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == "" {
		return ""
	}
	return "; its stderr last said: " + execAbbrev(t.last)
}
