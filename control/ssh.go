package control

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshRemote is one node reached over ssh: a single connection, dialled again
// when it dies, carrying at most cfg.MaxSessions sessions at a time.
type sshRemote struct {
	node  Node
	addr  string
	cfg   SSHConfig
	auth  []ssh.AuthMethod
	agent io.Closer // nil without ssh-agent
	sem   chan struct{}
	sudo  *sudoer

	mu      sync.Mutex
	client  *ssh.Client   // nil while disconnected
	dialing chan struct{} // closed when the dial in progress ends
	closed  bool
}

// DialSSH connects to node and returns its Remote. The connection is checked
// here (reachability, host key, authentication) so configuration mistakes
// surface before a test starts; later losses are repaired by redialling.
func DialSSH(ctx context.Context, node Node, cfg SSHConfig) (Remote, error) {
	cfg, signers, err := cfg.resolve()
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", node.Name, err)
	}
	auth, agentConn, err := cfg.authMethods(signers)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", node.Name, err)
	}
	r := &sshRemote{
		node: node, addr: node.Addr(cfg.Port), cfg: cfg, auth: auth, agent: agentConn,
		sem:  make(chan struct{}, cfg.MaxSessions),
		sudo: &sudoer{root: cfg.User == "root", password: cfg.SudoPassword},
	}
	if _, err := r.connect(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *sshRemote) Node() string { return r.node.Name }

// Close closes the connection; sessions in flight end with an error.
func (r *sshRemote) Close() error {
	r.mu.Lock()
	c := r.client
	r.client, r.closed = nil, true
	r.mu.Unlock()
	if c != nil {
		c.Close()
	}
	if r.agent != nil {
		return r.agent.Close()
	}
	return nil
}

// connect returns the live client, dialling if there is none. Concurrent
// callers share one dial; each waits only as long as its own ctx allows.
func (r *sshRemote) connect(ctx context.Context) (*ssh.Client, error) {
	for {
		r.mu.Lock()
		switch {
		case r.closed:
			r.mu.Unlock()
			return nil, fmt.Errorf("node %s: %w", r.node.Name, ErrClosed)
		case r.client != nil:
			c := r.client
			r.mu.Unlock()
			return c, nil
		case r.dialing != nil:
			wait := r.dialing
			r.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, fmt.Errorf("node %s: connect: %w", r.node.Name, context.Cause(ctx))
			}
		}
		done := make(chan struct{})
		r.dialing = done
		r.mu.Unlock()

		c, err := r.dial(ctx)
		r.mu.Lock()
		r.dialing = nil
		if err == nil && r.closed {
			c.Close()
			c, err = nil, fmt.Errorf("node %s: %w", r.node.Name, ErrClosed)
		}
		if err == nil {
			r.client = c
			r.watch(c)
		}
		r.mu.Unlock()
		close(done)
		return c, err
	}
}

// dial opens a new authenticated connection. x/crypto's Timeout covers only
// the TCP connect, so the handshake is bounded by a deadline on the conn and
// by ctx, which closes the conn when it ends.
func (r *sshRemote) dial(ctx context.Context) (*ssh.Client, error) {
	hk, err := newHostKeyPolicy(r.node, r.addr, r.cfg)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", r.node.Name, err)
	}
	cc := &ssh.ClientConfig{
		User:              r.cfg.User,
		Auth:              r.auth,
		HostKeyCallback:   hk.callback,
		HostKeyAlgorithms: hk.algorithms,
		Timeout:           r.cfg.HandshakeTimeout,
	}
	d := net.Dialer{Timeout: r.cfg.HandshakeTimeout, KeepAlive: 15 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", r.addr)
	if err != nil {
		return nil, fmt.Errorf("node %s: dial %s: %w", r.node.Name, r.addr, err)
	}
	if err := conn.SetDeadline(time.Now().Add(r.cfg.HandshakeTimeout)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("node %s: %w", r.node.Name, err)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	sc, chans, reqs, err := ssh.NewClientConn(conn, r.addr, cc)
	if !stop() {
		if err == nil {
			sc.Close()
		}
		return nil, fmt.Errorf("node %s: ssh handshake with %s: %w", r.node.Name, r.addr, context.Cause(ctx))
	}
	if err != nil {
		return nil, fmt.Errorf("node %s: ssh to %s as %s: %w", r.node.Name, r.addr, r.cfg.User, err)
	}
	if err := conn.SetDeadline(time.Time{}); err != nil {
		sc.Close()
		return nil, fmt.Errorf("node %s: %w", r.node.Name, err)
	}
	return ssh.NewClient(sc, chans, reqs), nil
}

// watch forgets c as soon as it dies, and sends keepalives so that a silent
// peer (a partition, a frozen node) is noticed instead of hanging sessions.
func (r *sshRemote) watch(c *ssh.Client) {
	done := make(chan struct{})
	go func() {
		c.Wait()
		close(done)
		r.drop(c)
	}()
	if r.cfg.KeepAlive < 0 {
		return
	}
	go func() {
		t := time.NewTicker(r.cfg.KeepAlive)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if !keepAlive(c, r.cfg.KeepAlive) {
					c.Close()
					return
				}
			}
		}
	}()
}

// keepAlive sends one keepalive request and waits up to wait for any reply
// (OpenSSH answers "unsupported", which still proves the peer is alive).
func keepAlive(c *ssh.Client, wait time.Duration) bool {
	reply := make(chan error, 1)
	go func() {
		_, _, err := c.SendRequest("keepalive@openssh.com", true, nil)
		reply <- err
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case err := <-reply:
		return err == nil
	case <-t.C:
		return false
	}
}

// drop closes c and forgets it if it is still the current client.
func (r *sshRemote) drop(c *ssh.Client) {
	r.mu.Lock()
	if r.client == c {
		r.client = nil
	}
	r.mu.Unlock()
	c.Close()
}

// acquire takes one of the connection's session slots.
func (r *sshRemote) acquire(ctx context.Context) (release func(), err error) {
	select {
	case r.sem <- struct{}{}:
		return func() { <-r.sem }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("node %s: waiting for a session slot: %w", r.node.Name, context.Cause(ctx))
	}
}

// withClient runs open against the live client. When open fails because the
// connection turned out dead, nothing reached the node, so it redials and
// tries once more. When sshd refuses a channel it is usually still reaping
// sessions that just ended (its MaxSessions counts them a little longer than
// our semaphore does), so that is retried for a short while.
func (r *sshRemote) withClient(ctx context.Context, what string, open func(*ssh.Client) error) error {
	redialled := false
	for wait := 10 * time.Millisecond; ; wait *= 2 {
		c, err := r.connect(ctx)
		if err != nil {
			return err
		}
		err = open(c)
		var oce *ssh.OpenChannelError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &oce) && wait <= refusedRetry:
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
				return fmt.Errorf("node %s: %s: %w (%w)", r.node.Name, what, context.Cause(ctx), err)
			}
		case connDead(err) && !redialled:
			redialled = true
			r.drop(c)
			continue
		}
		return fmt.Errorf("node %s: %s: %w", r.node.Name, what, err)
	}
}

// refusedRetry caps the backoff for refused channels (10ms doubling to this:
// about 0.6s in all).
const refusedRetry = 320 * time.Millisecond

// connDead reports whether err means the connection itself is gone, as
// opposed to the server refusing one channel or request.
func connDead(err error) bool {
	var oce *ssh.OpenChannelError
	if errors.As(err, &oce) {
		return false
	}
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne)
}

// Run runs c in a new session. sshd refuses to signal a root session (it
// runs in the privileged monitor), so cancelling ctx cannot stop a command
// there; instead a command without a Timeout gets the time left until ctx's
// deadline as its remote timeout, so it never outlives the run.
func (r *sshRemote) Run(ctx context.Context, c Cmd) (Result, error) {
	if dl, ok := ctx.Deadline(); ok && c.Timeout == 0 {
		c.Timeout = max(time.Until(dl), time.Millisecond)
	}
	line, stdin, err := r.sudo.prepare(ctx, c, func(ctx context.Context, probe Cmd) error {
		_, err := r.exec(ctx, QuoteArgv(probe.Argv), probe, nil)
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("node %s: %w", r.node.Name, err)
	}
	return r.exec(ctx, line, c, stdin)
}

// exec runs one command line in a new session.
func (r *sshRemote) exec(ctx context.Context, line string, c Cmd, stdin []byte) (Result, error) {
	ctx, cancel := runDeadline(ctx, c)
	defer cancel()
	release, err := r.acquire(ctx)
	if err != nil {
		return Result{}, err
	}
	defer release()
	var sess *ssh.Session
	err = r.withClient(ctx, "open session", func(c *ssh.Client) (err error) {
		sess, err = c.NewSession()
		return err
	})
	if err != nil {
		return Result{}, err
	}
	var stdout, stderr capBuffer
	sess.Stdout, sess.Stderr = &stdout, &stderr
	if len(stdin) > 0 {
		sess.Stdin = bytes.NewReader(stdin)
	}
	start := time.Now()
	if err := sess.Start(line); err != nil {
		sess.Close()
		if connDead(err) {
			return Result{}, indeterminate(r.node.Name, "start "+c.describe(line), err)
		}
		return Result{}, fmt.Errorf("node %s: start %s: %w", r.node.Name, c.describe(line), err)
	}
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case err = <-done:
		sess.Close()
	case <-ctx.Done():
		// Closing a session does not stop the remote command (no PTY), so
		// ask for KILL first; both run aside in case the connection hangs.
		go func() {
			sess.Signal(ssh.SIGKILL)
			sess.Close()
		}()
		return Result{Duration: time.Since(start)}, indeterminate(r.node.Name, "command "+c.describe(line), context.Cause(ctx))
	}
	res := Result{Stdout: stdout.buf, Stderr: stderr.buf, Duration: time.Since(start),
		Truncated: stdout.dropped || stderr.dropped}
	var xe *ssh.ExitError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &xe):
		res.Exit = xe.ExitStatus()
		return res, exitResult(r.node.Name, line, c, res, xe.Signal())
	default:
		// No exit status: the connection or the session broke mid-command.
		// The watcher drops a dead connection; a live one keeps serving
		// the other sessions.
		return res, indeterminate(r.node.Name, "connection lost during "+c.describe(line), err)
	}
}
