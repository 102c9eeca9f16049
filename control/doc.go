// Package control drives the nodes of a test: it runs commands and copies
// files on them through a Remote (ssh, this host, or a dry run that only
// records), and exposes that to Starlark as node values.
//
// Commands follow Jepsen's jepsen.control: arguments are shell-escaped unless
// the caller asks for a raw command line, a non-zero exit is an *ExitError
// carrying stdout and stderr, and a connection lost while a command runs is
// reported as ErrIndeterminate (the command may or may not have taken
// effect; a history records such an op as info).
//
// # Remotes
//
// DialSSH keeps one connection per node, checks host keys strictly against
// known_hosts by default (SSHConfig.AcceptNew records unknown hosts, never
// changed ones; PinnedKeys fixes a node's key), offers only the host-key
// algorithms of the keys on file, bounds the handshake, sends keepalives,
// runs at most 8 sessions at a time (OpenSSH refuses an 11th) and redials a
// dead connection. Upload and Download use sftp and rename a temporary file
// into place. Local runs the same command lines through /bin/sh on this
// host; DryRun only records them. A Pool holds one Remote per node.
//
// Over ssh, cancelling a command's context returns at once and closes the
// session, but OpenSSH does not signal root sessions, so the command may go
// on running on the node. Give long commands a Cmd.Timeout (enforced on the
// node by timeout(1)); a command without one inherits the time left until
// its context's deadline.
//
// # Starlark
//
// The interpreter binds Module as "control" and sets the thread locals
// CtxLocal (the run's context) and PoolLocal (the run's *Pool):
//
//	control.nodes()                  -> [node, ...]
//	control.node("n1")               -> node
//	control.on_nodes(fn)             -> {"n1": fn(n1), ...}, all nodes in parallel
//	control.on_nodes(nodes, fn)      the same for a list of nodes or names
//
//	node.name, node.host, node.port
//	node.exec(*argv, raw=, dir=, env=, sudo=False, timeout=, check=True, stdin=)
//	                                 -> struct(stdout, stderr, exit)
//	node.sudo(*argv, ...)            exec with sudo=True
//	node.upload(local, remote)
//	node.download(remote, local)
//	node.start_daemon(argv, pidfile=, logfile=, chdir=, env=, sudo=False) -> pid
//	node.stop_daemon(pidfile, signal="TERM", timeout="10s", sudo=False) -> stopped
//	node.signal(pid_or_pattern, sig="TERM", sudo=False) -> processes signalled
//	node.await_port(port, timeout="60s")
//	node.exists(path)                -> bool
//
// Errors name the node; Go callers reach the *ExitError or ErrIndeterminate
// behind a Starlark error with errors.As and errors.Is.
//
// # Nodes
//
// ParseNodes (--nodes), ParseNodeList (a scenario's list) and ReadNodesFile
// (--nodes-file) accept host, host:port, [v6]:port and name=host:port, and
// the file also "name host [port]"; '#' starts a comment. The cluster
// package writes name=host:port.
package control
