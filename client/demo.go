package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/faultline/faultline/history"
)

// ServiceResolver maps a node and one of its named services to the
// host:port a client dials; ok is false for a node or service it does not
// know. In local mode every node runs on this host behind a proxy per link,
// so the answer is a per-node port rather than a fixed port on a node host.
// port is the service's port on a real node.
type ServiceResolver func(node, service string, port int) (addr string, ok bool)

// ServiceStarter is implemented by clients that dial a named service of
// the node a process is bound to. A run that knows each node's service
// addresses calls StartServices instead of Start.
type ServiceStarter interface {
	StartServices(seed uint64, resolve ServiceResolver) (Session, error)
}

// DemoKVService is the service name DemoKV resolves: the demo store's HTTP
// API, on DemoKVPort of a real node by default.
const (
	DemoKVService = "http"
	DemoKVPort    = 8080
)

// DemoKV is the demo store of examples/demostore, reached through its HTTP
// API. Each process talks to the node it is bound to; a non-leader's 503
// with a leader hint is retried once at the leader, since the refused
// request had no effect. Ops read, write and cas act on one register per op
// key, with integer values; dump (DumpF) reads keys one by one.
type DemoKV struct {
	Timeout time.Duration // per-op deadline, retry included
	Port    int           // the HTTP port on a real node (0: DemoKVPort)
}

var (
	_ Client         = (*DemoKV)(nil)
	_ ServiceStarter = (*DemoKV)(nil)
)

// String implements Client: the client as a scenario declares it.
func (d *DemoKV) String() string {
	if d.Port != 0 && d.Port != DemoKVPort {
		return fmt.Sprintf("client.demo_kv(timeout=%q, port=%d)", d.Timeout, d.Port)
	}
	return fmt.Sprintf("client.demo_kv(timeout=%q)", d.Timeout)
}

// Simulated implements Client: the store runs in real time as processes.
func (d *DemoKV) Simulated() bool { return false }

// Start implements Client. Without a resolver no node has an address, so
// every Open fails: the demo store is only reachable in a run that knows
// its nodes' ports.
func (d *DemoKV) Start(seed uint64) (Session, error) { return d.StartServices(seed, nil) }

// StartServices implements ServiceStarter.
func (d *DemoKV) StartServices(_ uint64, resolve ServiceResolver) (Session, error) {
	if d.Timeout <= 0 {
		return nil, fmt.Errorf("demo_kv: timeout must be positive, got %s", d.Timeout)
	}
	// One transport per run so keep-alive connections are shared by all
	// workers and reused across ops.
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: d.Timeout}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}
	return &demoSession{cfg: *d, resolve: resolve, http: &http.Client{Transport: tr}}, nil
}

type demoSession struct {
	cfg     DemoKV
	resolve ServiceResolver
	http    *http.Client
	written keyLog // keys writes and cas ops named, for a dump of them all
}

// base returns the URL prefix of node's API.
func (s *demoSession) base(node string) (string, bool) {
	if s.resolve == nil {
		return "", false
	}
	port := s.cfg.Port
	if port == 0 {
		port = DemoKVPort
	}
	addr, ok := s.resolve(node, DemoKVService, port)
	if !ok {
		return "", false
	}
	return "http://" + addr, true
}

// Open implements Session.
func (s *demoSession) Open(_, _ int, node string) (Worker, error) {
	base, ok := s.base(node)
	if !ok {
		return nil, fmt.Errorf("demo_kv: no %s address for node %q", DemoKVService, node)
	}
	return &demoWorker{s: s, node: node, base: base}, nil
}

// Close implements Session.
func (s *demoSession) Close() error {
	s.http.CloseIdleConnections()
	return nil
}

// demoWorker serves one process; its buffers are reused across ops.
type demoWorker struct {
	s    *demoSession
	node string
	base string
	req  []byte       // request body
	resp bytes.Buffer // response body
}

// Close implements Worker.
func (w *demoWorker) Close() error { return nil }

// demoReply is any answer of the demo store's API.
type demoReply struct {
	Value  *int64 `json:"value"`
	Error  string `json:"error"`
	Leader string `json:"leader"`
}

// demoMaxResponse bounds an API answer; a real one is a few dozen bytes.
const demoMaxResponse = 64 << 10

// Invoke implements Worker.
func (w *demoWorker) Invoke(ctx context.Context, op history.Op) history.Op {
	if op.F == DumpF {
		// Each key is an ordinary read with its own deadline and leader retry.
		keys, err := dumpKeys(op, w.s.written.written)
		if err != nil {
			return failWith(op, err.Error())
		}
		return dump(ctx, op, keys, w.Invoke)
	}
	w.s.written.note(op)
	ctx, cancel := context.WithTimeout(ctx, w.s.cfg.Timeout)
	defer cancel()
	path := "/kv/" + url.PathEscape(string(etcdKey(op.Key)))
	method := http.MethodGet
	w.req = w.req[:0]
	switch op.F {
	case "read":
	case "write":
		v, ok := op.Value.(int64)
		if !ok {
			return failWith(op, fmt.Sprintf("demo_kv values must be integers, got %T", op.Value))
		}
		method = http.MethodPut
		w.req = append(strconv.AppendInt(append(w.req, `{"value":`...), v, 10), '}')
	case "cas":
		pair, ok := op.Value.([]any)
		if !ok || len(pair) != 2 {
			return failWith(op, "cas value must be [from, to]")
		}
		from, ok1 := pair[0].(int64)
		to, ok2 := pair[1].(int64)
		if !ok1 || !ok2 {
			return failWith(op, fmt.Sprintf("demo_kv cas values must be integers, got [%T, %T]", pair[0], pair[1]))
		}
		method, path = http.MethodPost, path+"/cas"
		w.req = strconv.AppendInt(append(w.req, `{"from":`...), from, 10)
		w.req = append(strconv.AppendInt(append(w.req, `,"to":`...), to, 10), '}')
	default:
		return failWith(op, fmt.Sprintf("demo_kv has no operation %q (want read, write, cas or dump)", op.F))
	}

	status, reply, err := w.do(ctx, w.base, method, path)
	if err == nil && status == http.StatusServiceUnavailable && reply.Leader != "" && reply.Leader != w.node {
		// Not the leader, and it said so before doing anything: ask the leader.
		if base, ok := w.s.base(reply.Leader); ok {
			status, reply, err = w.do(ctx, base, method, path)
		}
	}
	return demoOutcome(op, status, reply, err)
}

// demoOutcome classifies an answer (or a transport error) of the demo
// store. A read never has an effect, so any failure of it is definite; a
// write or cas that may have reached the leader's log is indeterminate.
func demoOutcome(op history.Op, status int, reply demoReply, err error) history.Op {
	read := op.F == "read"
	switch {
	case err != nil && read:
		return failWith(op, err.Error())
	case err != nil:
		return indefinite(op, err)
	case status == http.StatusOK && read:
		if reply.Value == nil {
			return complete(op, history.OK, nil)
		}
		return complete(op, history.OK, *reply.Value)
	case status == http.StatusOK:
		return complete(op, history.OK, op.Value)
	case status == http.StatusConflict && op.F == "cas":
		return failWith(op, "cas: value did not match")
	}
	msg := fmt.Sprintf("HTTP %d: %s", status, reply.Error)
	if reply.Leader != "" {
		msg += " (leader " + reply.Leader + ")"
	}
	// 4xx and 503 are refusals before anything happened; other 5xx (504
	// "indeterminate") leave a write's fate open.
	if read || status < 500 || status == http.StatusServiceUnavailable {
		return failWith(op, msg)
	}
	op.Type = history.Info
	op.Error = msg
	return op
}

// do sends one request with w.req as its body (if any) and decodes the
// answer, whatever its status.
func (w *demoWorker) do(ctx context.Context, base, method, path string) (int, demoReply, error) {
	var body io.Reader
	if len(w.req) > 0 {
		body = bytes.NewReader(w.req)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, body)
	if err != nil {
		return 0, demoReply{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := w.s.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, demoReply{}, fmt.Errorf("timeout: %w", err)
		}
		return 0, demoReply{}, err
	}
	defer resp.Body.Close()
	w.resp.Reset()
	if _, err := w.resp.ReadFrom(io.LimitReader(resp.Body, demoMaxResponse)); err != nil {
		return 0, demoReply{}, fmt.Errorf("%s %s: read response: %w", method, path, err)
	}
	var reply demoReply
	if err := json.Unmarshal(w.resp.Bytes(), &reply); err != nil {
		return 0, demoReply{}, fmt.Errorf("%s %s: HTTP %d with undecodable body %q: %w", method, path, resp.StatusCode, bytes.TrimSpace(w.resp.Bytes()), err)
	}
	return resp.StatusCode, reply, nil
}

// Retries implements RetryReporter: the only resend is of a request a node
// refused before acting on it, so no effect is hidden from the history.
func (d *DemoKV) Retries() (bool, string) {
	return false, "demo_kv resends a request only when a node refused it before acting (503 not leader), once, to the leader it named; every other outcome is recorded as it came"
}
