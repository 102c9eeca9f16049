package control

import "github.com/faultline/faultline/star"

// The reference of the "control" module and of node values
// (docs/starlark.md); parameter names, order and defaults follow each
// builtin's UnpackArgs call.

func init() {
	star.Describe("control", "The run's nodes: commands, files, daemons and addresses on them.",
		"Every builtin that reaches a node needs the run's nodes (--nodes, --nodes-file, --local, or the scenario's nodes) "+
			"and fails without them before doing anything. Blocking calls end with the run's (or op's) context.")
	star.Document("control",
		star.FuncDoc{Name: "nodes", Summary: "Every node of the run, in order.", Returns: "a list of node values"},
		star.FuncDoc{Name: "node", Summary: "The node called name.", Params: []star.Param{{Name: "name", Doc: `the node's name ("n1")`}},
			Returns: "a node value; an error for an unknown name"},
		star.FuncDoc{Name: "on_nodes", Summary: "Calls fn(node) on the given nodes (default all) in parallel.",
			Doc: "on_nodes(fn) runs on every node; on_nodes(nodes, fn) on the listed ones. Each call gets its own thread; fn and its module are frozen first. " +
				"If any call fails, the whole call fails naming each failed node.",
			Signature: "control.on_nodes([nodes,] fn)",
			Params: []star.Param{{Name: "nodes", Doc: "a list of node values or node names (or, alone, fn itself)"},
				{Name: "fn", Default: "None", Doc: "fn(node) -> value"}},
			Returns: "a dict from node name to what fn returned there"},
		star.FuncDoc{Name: "http_get", Summary: "An HTTP GET from where faultline runs (not through the mesh).",
			Params:  []star.Param{{Name: "url", Doc: "the URL"}, {Name: "timeout", Default: `"1s"`, Doc: "the request's deadline"}},
			Returns: "a struct: status (0 when no answer came), body, error (\"\" when an answer came)"},
		star.FuncDoc{Name: "sleep", Summary: "Sleeps for duration, or until the run stops.",
			Params: []star.Param{{Name: "duration", Doc: `a duration string ("2s") or seconds`}}, Returns: "None"},
	)

	execParams := []star.Param{
		{Name: "*argv", Doc: "the command and its arguments (strings or ints), or one list of them"},
		{Name: "raw", Default: `""`, Doc: "a shell command line instead of argv, run by sh -c"},
		{Name: "dir", Default: `""`, Doc: "the working directory"},
		{Name: "env", Default: "{}", Doc: "extra environment variables, names to strings or ints"},
		{Name: "sudo", Default: "False", Doc: "run as root through sudo (node.sudo sets it)"},
		{Name: "timeout", Default: `"0s"`, Doc: "a deadline for the command; 0 is none besides the run's"},
		{Name: "check", Default: "True", Doc: "raise when the command exits non-zero; False returns the exit status instead"},
		{Name: "stdin", Default: `""`, Doc: "text fed to the command's standard input"},
	}
	execResult := "a struct: stdout, stderr, exit (int)"
	star.DocumentType(star.TypeDoc{Name: "node", Receiver: "node", Summary: "One node of the run: a host reached over SSH, or a local node.",
		From: "control.nodes(), control.node(), and the argument of db recipes', faults' and client.starlark's functions",
		Doc:  "Nodes compare equal by name and may be dict keys.",
		Fields: []star.Field{
			{Name: "name", Doc: `the node's name ("n1")`},
			{Name: "host", Doc: "its host name or address"},
			{Name: "port", Doc: "its sshd port (0: the default)"},
			{Name: "dir", Doc: `its working directory: a local node's own directory, "/opt/faultline" over SSH`},
		},
		Methods: []star.FuncDoc{
			{Name: "exec", Summary: "Runs a command on the node.", Params: execParams, Returns: execResult},
			{Name: "sudo", Summary: "Runs a command on the node as root (exec with sudo = True).", Params: execParams, Returns: execResult},
			{Name: "upload", Summary: "Copies a local file to the node.",
				Params: []star.Param{{Name: "local", Doc: "the path where faultline runs"}, {Name: "remote", Doc: "the path on the node"}}, Returns: "None"},
			{Name: "download", Summary: "Copies a file from the node.",
				Params: []star.Param{{Name: "remote", Doc: "the path on the node"}, {Name: "local", Doc: "the path where faultline runs"}}, Returns: "None"},
			{Name: "start_daemon", Summary: "Starts a long-running process in the background, recording its pid.",
				Params: []star.Param{{Name: "argv", Doc: "the command and its arguments, a list"},
					{Name: "pidfile", Default: `""`, Doc: "where its pid is written (what stop_daemon and nemesis.kill read)"},
					{Name: "logfile", Default: `""`, Doc: "where its stdout and stderr go"},
					{Name: "chdir", Default: `""`, Doc: "its working directory"},
					{Name: "env", Default: "{}", Doc: "extra environment variables"},
					{Name: "sudo", Default: "False", Doc: "start it as root"}},
				Returns: "its pid"},
			{Name: "stop_daemon", Summary: "Stops the daemon whose pid is in pidfile: signal, then SIGKILL after timeout.",
				Params: []star.Param{{Name: "pidfile", Doc: "the daemon's pidfile"},
					{Name: "signal", Default: `"TERM"`, Doc: "the first signal sent"},
					{Name: "timeout", Default: `"10s"`, Doc: "how long it may take to exit before SIGKILL"},
					{Name: "sudo", Default: "False", Doc: "signal as root"}},
				Returns: "True when a process was stopped, False when none was running"},
			{Name: "signal", Summary: "Sends a signal to a pid or to every process whose command line matches a pattern.",
				Params: []star.Param{{Name: "target", Doc: "a pid (int) or a command-line pattern (string, as pkill -f)"},
					{Name: "sig", Default: `"TERM"`, Doc: "the signal's name"},
					{Name: "sudo", Default: "False", Doc: "signal as root"}},
				Returns: "how many processes were signalled"},
			{Name: "await_port", Summary: "Waits until something listens on port on the node.",
				Params:  []star.Param{{Name: "port", Doc: "the TCP port"}, {Name: "timeout", Default: `"1m"`, Doc: "how long to wait"}},
				Returns: "None; an error at the timeout"},
			{Name: "exists", Summary: "Whether path exists on the node.", Params: []star.Param{{Name: "path", Doc: "the path"}}, Returns: "a bool"},
			{Name: "listen_addr", Summary: "The address the node's service should listen on.",
				Doc:     "On local nodes each node gets its own address and port behind the proxy mesh; on real nodes it is the node's host and port.",
				Params:  []star.Param{{Name: "service", Doc: `the service's name ("http", "raft")`}, {Name: "port", Doc: "its port on a real node"}},
				Returns: "a host:port string"},
			{Name: "addr_of", Summary: "The address this node dials to reach peer's service (through the mesh on local nodes, so partitions cut it).",
				Doc: "On local nodes every directed link (this node to peer) has its own proxy, so a partition cuts only peer traffic dialled at these addresses. " +
					"A system whose nodes learn each other's addresses by gossip (an advertise address each node announces: NATS route gossip, " +
					"Serf/Consul, Cassandra's broadcast address) dials what was announced — on local nodes the peers' real listen addresses — " +
					"and goes around the cut. Give each node its peers explicitly as node.addr_of(peer, service, port) (its routes, seeds, " +
					"initial cluster or peer URLs) and turn the gossip of addresses off (NATS: cluster { no_advertise: true }). " +
					"A partition's evidence counts the system's own connections over each cut link before and during the fault, and says so " +
					"when its peers never dialled each other through the mesh.",
				Params:  []star.Param{{Name: "peer", Doc: "a node value or node name"}, {Name: "service", Doc: "the service's name"}, {Name: "port", Doc: "its port on a real node"}},
				Returns: "a host:port string"},
			{Name: "client_addr", Summary: "The address a client dials to reach this node's service.",
				Doc:     "Through the proxy mesh on local nodes, so partitions reach client traffic; direct on real nodes.",
				Params:  []star.Param{{Name: "service", Doc: "the service's name"}, {Name: "port", Doc: "its port on a real node (1..65535)"}},
				Returns: "a host:port string"},
			{Name: "faultline", Summary: "The path of a faultline binary the node can run (copied there when remote, under /opt/faultline/bin, and removed again by the run's final heal and by `faultline heal`).", Returns: "a path"},
		},
	})
}
