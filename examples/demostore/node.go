// Package demostore is the demo system under test of `faultline demo`: a
// replicated key-value store of int64 registers on hashicorp/raft, with a
// durable bolt log, file snapshots and a JSON HTTP API. A --bug switch
// turns on a realistic consistency bug so faultline has something to find.
//
// Every raft link is dialled at an address given per peer (--peer), because
// faultline's proxy mesh gives each directed link its own proxy.
package demostore

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"
)

// config is one node's command line.
type config struct {
	id         string
	dir        string
	raftListen string
	httpListen string
	peers      peerFlag
	bootstrap  bool
	bug        string
	apply      time.Duration // how long a request waits for its log entry
}

// peerFlag collects repeated --peer ID=HOST:PORT flags.
type peerFlag map[string]string

func (p peerFlag) String() string {
	parts := make([]string, 0, len(p))
	for id, addr := range p {
		parts = append(parts, id+"="+addr)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// Set implements flag.Value.
func (p peerFlag) Set(s string) error {
	id, addr, ok := strings.Cut(s, "=")
	if !ok || id == "" || addr == "" {
		return fmt.Errorf("want ID=HOST:PORT, got %q", s)
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("peer %s: %w", id, err)
	}
	if _, dup := p[id]; dup {
		return fmt.Errorf("peer %s given twice", id)
	}
	p[id] = addr
	return nil
}

// parseFlags reads a node's command line; usage and errors go to stderr.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	c := config{peers: peerFlag{}}
	fs := flag.NewFlagSet("demo-node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.id, "id", "", "this node's id, e.g. n1")
	fs.StringVar(&c.dir, "dir", "", "data directory (raft log, stable store, snapshots)")
	fs.StringVar(&c.raftListen, "raft-listen", "", "HOST:PORT the raft transport listens on")
	fs.StringVar(&c.httpListen, "http-listen", "", "HOST:PORT the HTTP API listens on")
	fs.Var(c.peers, "peer", "ID=HOST:PORT this node dials to reach peer ID's raft port (repeat per peer)")
	fs.BoolVar(&c.bootstrap, "bootstrap", false, "bootstrap the cluster of this node and its peers on first start")
	fs.StringVar(&c.bug, "bug", "", "turn on a bug: "+strings.Join(Bugs, "; "))
	fs.DurationVar(&c.apply, "apply-timeout", defaultApply, "how long a request waits for its log entry before answering 504 indeterminate")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var missing []string
	for _, f := range []struct{ name, val string }{
		{"--id", c.id}, {"--dir", c.dir}, {"--raft-listen", c.raftListen}, {"--http-listen", c.httpListen},
	} {
		if f.val == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return c, fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	if c.apply <= 0 {
		return c, fmt.Errorf("--apply-timeout must be positive, got %s", c.apply)
	}
	if _, self := c.peers[c.id]; self {
		return c, fmt.Errorf("--peer names this node %s itself", c.id)
	}
	return c, checkBug(c.bug)
}

// Raft timing for a fast demo on loopback: a lost leader is replaced in
// about a second, and a leader cut off from its quorum steps down within
// its lease.
const (
	heartbeatTimeout = 400 * time.Millisecond
	electionTimeout  = 400 * time.Millisecond
	leaderLease      = 250 * time.Millisecond
	rpcTimeout       = time.Second // IO deadline of one raft RPC (a paused peer)
	defaultApply     = time.Second // how long an HTTP request waits for its entry
)

// Main runs one node until ctx ends: the hidden `faultline demo-node`
// subcommand. A restart with the same --dir resumes from disk.
func Main(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return fmt.Errorf("demo-node: %w", err)
	}
	n, err := start(cfg, stderr)
	if err != nil {
		return fmt.Errorf("demo-node %s: %w", cfg.id, err)
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-n.served:
		serveErr = fmt.Errorf("demo-node %s: http: %w", cfg.id, serveErr)
	}
	return errors.Join(serveErr, n.stop())
}

// node is one running replica.
type node struct {
	id     string
	bug    string
	apply  time.Duration
	fsm    *store
	raft   *raft.Raft
	trans  *raft.NetworkTransport
	bolt   *raftboltdb.BoltStore
	http   *http.Server
	served chan error // the HTTP server stopped on its own
}

// start opens the node's storage, joins raft and serves HTTP. On error it
// releases whatever it had opened.
func start(cfg config, stderr io.Writer) (*node, error) {
	n := &node{id: cfg.id, bug: cfg.bug, apply: cfg.apply, fsm: newStore(), served: make(chan error, 1)}
	if err := n.open(cfg, stderr); err != nil {
		return nil, errors.Join(err, n.stop())
	}
	return n, nil
}

// open brings up the node's parts in order, recording each in n so stop
// can release exactly those.
func (n *node) open(cfg config, stderr io.Writer) (err error) {
	if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "raft-" + cfg.id, Level: hclog.Warn, Output: stderr})

	// The bolt file lock is held by a live process only; a timeout turns two
	// nodes sharing a --dir into an error instead of a hang.
	n.bolt, err = raftboltdb.New(raftboltdb.Options{
		Path:        filepath.Join(cfg.dir, "raft.db"),
		BoltOptions: &bbolt.Options{Timeout: 5 * time.Second},
	})
	if err != nil {
		return fmt.Errorf("open raft log: %w", err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(cfg.dir, 2, logger)
	if err != nil {
		return fmt.Errorf("snapshot store: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.raftListen)
	if err != nil {
		return fmt.Errorf("raft listen: %w", err)
	}
	n.trans = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  &streamLayer{Listener: ln, self: nodeAddr(cfg.id), peers: cfg.peers},
		MaxPool: 3,
		Timeout: rpcTimeout,
		Logger:  logger,
	})

	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.id)
	rc.HeartbeatTimeout = heartbeatTimeout
	rc.ElectionTimeout = electionTimeout
	rc.LeaderLeaseTimeout = leaderLease
	rc.CommitTimeout = 20 * time.Millisecond
	rc.SnapshotInterval = 10 * time.Second
	rc.SnapshotThreshold = 2048
	rc.TrailingLogs = 1024
	rc.Logger = logger

	if cfg.bootstrap {
		if err := n.bootstrap(cfg, rc, snaps, stderr); err != nil {
			return err
		}
	}
	n.raft, err = raft.NewRaft(rc, n.fsm, n.bolt, n.bolt, snaps, n.trans)
	if err != nil {
		return fmt.Errorf("start raft: %w", err)
	}

	hl, err := net.Listen("tcp", cfg.httpListen)
	if err != nil {
		return fmt.Errorf("http listen: %w", err)
	}
	n.http = &http.Server{
		Handler:           n.routes(),
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          log.New(stderr, "demostore "+cfg.id+": ", 0),
	}
	go func() {
		if err := n.http.Serve(hl); !errors.Is(err, http.ErrServerClosed) {
			n.served <- err
		}
	}()
	return nil
}

// bootstrap writes the initial configuration (this node and every peer,
// addressed by id) unless the node already has raft state: a restarted
// node must rejoin with what it has, never start a second history.
func (n *node) bootstrap(cfg config, rc *raft.Config, snaps raft.SnapshotStore, stderr io.Writer) error {
	has, err := raft.HasExistingState(n.bolt, n.bolt, snaps)
	if err != nil {
		return fmt.Errorf("read raft state: %w", err)
	}
	if has {
		return nil
	}
	ids := append([]string{cfg.id}, slices.Sorted(maps.Keys(cfg.peers))...)
	servers := make([]raft.Server, len(ids))
	for i, id := range ids {
		servers[i] = raft.Server{ID: raft.ServerID(id), Address: raft.ServerAddress(id)}
	}
	fmt.Fprintf(stderr, "demostore %s: bootstrapping cluster %s\n", cfg.id, strings.Join(ids, ","))
	if err := raft.BootstrapCluster(rc, n.bolt, n.bolt, snaps, n.trans, raft.Configuration{Servers: servers}); err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	return nil
}

// stop closes what start opened, newest first; safe on a partial node.
func (n *node) stop() error {
	var errs []error
	if n.http != nil {
		errs = append(errs, n.http.Close())
	}
	if n.raft != nil {
		errs = append(errs, n.raft.Shutdown().Error())
	}
	if n.trans != nil {
		errs = append(errs, n.trans.Close())
	}
	if n.bolt != nil {
		errs = append(errs, n.bolt.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}
