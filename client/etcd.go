package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/faultline/faultline/history"
)

// HostResolver maps a node name to the host its services listen on; ok is
// false for a name it does not know.
type HostResolver func(node string) (host string, ok bool)

// NodeStarter is implemented by clients of real systems that dial the node
// a client process is bound to. A run with nodes calls StartNodes instead of
// Start, so the client can turn node names into addresses.
type NodeStarter interface {
	StartNodes(seed uint64, resolve HostResolver) (Session, error)
}

// Etcd is a real etcd cluster reached through its v3 JSON gateway (HTTP on
// the client port). Each process talks to the node it is bound to, or to
// Endpoints[thread % len] when endpoints are given. Ops read, write and cas
// act on one key per op key, with integer values; dump (DumpF) reads keys
// linearizably, even when Serializable is set.
type Etcd struct {
	Endpoints []string      // base URLs like "http://10.0.0.1:2379"; nil = the bound node, port 2379
	Timeout   time.Duration // per-op deadline
	// Serializable lets a member answer reads from its local state without
	// consulting the leader: fast, and stale under partitions.
	Serializable bool
}

var (
	_ Client      = (*Etcd)(nil)
	_ NodeStarter = (*Etcd)(nil)
)

// etcdClientPort is the port the bound node's gateway listens on.
const etcdClientPort = "2379"

// String implements Client: the client as a scenario declares it.
func (e *Etcd) String() string {
	return fmt.Sprintf("client.etcd(endpoints=%q, timeout=%q, serializable=%t)", e.Endpoints, e.Timeout, e.Serializable)
}

// Simulated implements Client: etcd runs in real time on real nodes.
func (e *Etcd) Simulated() bool { return false }

// Start implements Client; without a resolver node names are dialled as
// host names.
func (e *Etcd) Start(seed uint64) (Session, error) { return e.StartNodes(seed, nil) }

// StartNodes implements NodeStarter.
func (e *Etcd) StartNodes(_ uint64, resolve HostResolver) (Session, error) {
	if e.Timeout <= 0 {
		return nil, fmt.Errorf("etcd: timeout must be positive, got %s", e.Timeout)
	}
	// One transport per run: keep-alive connections are reused across ops,
	// and a dead node's refused dial surfaces at once.
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: e.Timeout}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}
	return &etcdSession{cfg: *e, resolve: resolve, http: &http.Client{Transport: tr}}, nil
}

type etcdSession struct {
	cfg     Etcd
	resolve HostResolver
	http    *http.Client
	written keyLog // keys writes and cas ops named, for a dump of them all
}

// Open implements Session.
func (s *etcdSession) Open(thread, process int, node string) (Worker, error) {
	if n := len(s.cfg.Endpoints); n > 0 {
		return &etcdWorker{s: s, base: s.cfg.Endpoints[thread%n]}, nil
	}
	host := node
	if s.resolve != nil {
		h, ok := s.resolve(node)
		if !ok {
			return nil, fmt.Errorf("etcd: unknown node %q", node)
		}
		host = h
	}
	return &etcdWorker{s: s, base: "http://" + net.JoinHostPort(host, etcdClientPort)}, nil
}

// Close implements Session.
func (s *etcdSession) Close() error {
	s.http.CloseIdleConnections()
	return nil
}

type etcdWorker struct {
	s    *etcdSession
	base string
}

// Close implements Worker.
func (w *etcdWorker) Close() error { return nil }

// etcd JSON gateway messages; bytes fields are base64 in JSON, which
// encoding/json does for []byte.
type (
	etcdKV struct {
		Key   []byte `json:"key,omitempty"`
		Value []byte `json:"value,omitempty"`
	}
	etcdRange struct {
		Key          []byte `json:"key"`
		Serializable bool   `json:"serializable,omitempty"`
	}
	etcdRangeResp struct {
		Kvs []etcdKV `json:"kvs"`
	}
	etcdCompare struct {
		Key    []byte `json:"key"`
		Result string `json:"result"`
		Target string `json:"target"`
		Value  []byte `json:"value"`
	}
	etcdTxn struct {
		Compare []etcdCompare       `json:"compare"`
		Success []map[string]etcdKV `json:"success"`
	}
	etcdTxnResp struct {
		Succeeded bool `json:"succeeded"`
	}
)

// Invoke implements Worker.
func (w *etcdWorker) Invoke(ctx context.Context, op history.Op) history.Op {
	if op.F == DumpF {
		// Each read has its own deadline; the dump as a whole is bounded by
		// the run's op timeout.
		keys, err := dumpKeys(op, w.s.written.written)
		if err != nil {
			return failWith(op, err.Error())
		}
		return dump(ctx, op, keys, func(ctx context.Context, r history.Op) history.Op { return w.read(ctx, r, false) })
	}
	if op.F == "read" {
		return w.read(ctx, op, w.s.cfg.Serializable)
	}
	w.s.written.note(op)
	ctx, cancel := context.WithTimeout(ctx, w.s.cfg.Timeout)
	defer cancel()
	key := etcdKey(op.Key)
	switch op.F {
	case "write":
		val, err := etcdEncode(op.Value)
		if err != nil {
			return failWith(op, err.Error())
		}
		if err := w.post(ctx, "/v3/kv/put", etcdKV{Key: key, Value: val}, nil); err != nil {
			return indefinite(op, err)
		}
		return complete(op, history.OK, op.Value)
	case "cas":
		pair, ok := op.Value.([]any)
		if !ok || len(pair) != 2 {
			return failWith(op, "cas value must be [from, to]")
		}
		from, err1 := etcdEncode(pair[0])
		to, err2 := etcdEncode(pair[1])
		if err := errors.Join(err1, err2); err != nil {
			return failWith(op, err.Error())
		}
		txn := etcdTxn{
			Compare: []etcdCompare{{Key: key, Result: "EQUAL", Target: "VALUE", Value: from}},
			Success: []map[string]etcdKV{{"request_put": {Key: key, Value: to}}},
		}
		var resp etcdTxnResp
		if err := w.post(ctx, "/v3/kv/txn", txn, &resp); err != nil {
			return indefinite(op, err)
		}
		if !resp.Succeeded {
			op.Type = history.Fail
			return op
		}
		return complete(op, history.OK, op.Value)
	}
	return failWith(op, fmt.Sprintf("etcd has no operation %q (want read, write, cas or dump)", op.F))
}

// read reads op's key within the per-op deadline; serializable lets the
// member answer from its local state.
func (w *etcdWorker) read(ctx context.Context, op history.Op, serializable bool) history.Op {
	ctx, cancel := context.WithTimeout(ctx, w.s.cfg.Timeout)
	defer cancel()
	var resp etcdRangeResp
	if err := w.post(ctx, "/v3/kv/range", etcdRange{Key: etcdKey(op.Key), Serializable: serializable}, &resp); err != nil {
		return failWith(op, err.Error()) // a read has no effect
	}
	if len(resp.Kvs) == 0 {
		return complete(op, history.OK, nil)
	}
	v, err := etcdDecode(resp.Kvs[0].Value)
	if err != nil {
		return failWith(op, err.Error())
	}
	return complete(op, history.OK, v)
}

// indefinite completes a write whose outcome is unknown as info, except
// when the connection was refused: then nothing reached etcd.
func indefinite(op history.Op, err error) history.Op {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return failWith(op, err.Error())
	}
	op.Type = history.Info
	op.Error = err.Error()
	return op
}

// etcdMaxResponse bounds a gateway response; a single-key answer is tiny.
const etcdMaxResponse = 1 << 20

// post sends req as JSON to path and decodes a 200 answer into resp (nil
// to discard it).
func (w *etcdWorker) post(ctx context.Context, path string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, w.base+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hresp, err := w.s.http.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("timeout: %w", err)
		}
		return err
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, etcdMaxResponse))
	if err != nil {
		return fmt.Errorf("%s: read response: %w", path, err)
	}
	if hresp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", path, hresp.StatusCode, bytes.TrimSpace(data))
	}
	if resp == nil {
		return nil
	}
	if err := json.Unmarshal(data, resp); err != nil {
		return fmt.Errorf("%s: decode response: %w", path, err)
	}
	return nil
}

// etcdKey names the etcd key of an op key; ops without a key share "r".
func etcdKey(k any) []byte {
	if k == nil {
		return []byte("r")
	}
	return fmt.Append(nil, k)
}

// etcdEncode stores an integer value as its decimal text.
func etcdEncode(v any) ([]byte, error) {
	n, ok := v.(int64)
	if !ok {
		return nil, fmt.Errorf("etcd values must be integers, got %T", v)
	}
	return strconv.AppendInt(nil, n, 10), nil
}

// etcdDecode parses a stored value back into an integer.
func etcdDecode(b []byte) (any, error) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("etcd value %q is not an integer: %w", b, err)
	}
	return n, nil
}
