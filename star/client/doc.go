package client

import "github.com/faultline/faultline/star"

// The reference of the "client" module (docs/starlark.md); parameter
// names, order and defaults follow each constructor's UnpackArgs call.

func init() {
	star.Describe("client", "Clients: how a scenario's worker processes talk to the system under test.",
		"Each builtin returns a client value for scenario(client = ...). client.starlark is Jepsen's client protocol written in Starlark; "+
			"the others are faultline's Go clients.")
	star.Document("client",
		star.FuncDoc{Name: "register", Summary: "An in-process reference register (no system needed; runs in virtual time).",
			Params:  []star.Param{{Name: "stale_reads", Default: "0.0", Doc: "the probability (0..1) a read returns an older value: a bug to find"}},
			Returns: "a client"},
		star.FuncDoc{Name: "noop", Summary: "Completes every op ok at once.", Returns: "a client"},
		star.FuncDoc{Name: "postgres", Summary: "A real PostgreSQL database, one workload at one isolation level.",
			Doc: "The configuration is checked when the script loads.",
			Params: []star.Param{{Name: "dsn", Doc: "a postgres:// URL or key=value DSN"},
				{Name: "isolation", Default: `"serializable"`, Doc: `"serializable", "repeatable-read" or "read-committed"`},
				{Name: "workload", Default: `"list-append"`, Doc: `"list-append", "rw-register" or "bank"`},
				{Name: "accounts", Default: "5", Doc: "bank: how many accounts (at least 2)"},
				{Name: "total", Default: "100", Doc: "bank: the conserved total"}},
			Returns: "a client"},
		star.FuncDoc{Name: "etcd", Summary: "A real etcd cluster through its JSON gateway.",
			Doc: "Each process talks to the node it is bound to, unless endpoints are given.",
			Params: []star.Param{{Name: "endpoints", Default: "None", Doc: "a list of base URLs to use instead of the nodes", Example: `["http://127.0.0.1:2379"]`},
				{Name: "timeout", Default: `"1s"`, Doc: "each request's deadline (positive)"},
				{Name: "serializable", Default: "False", Doc: "serializable (possibly stale) reads instead of linearizable ones"}},
			Returns: "a client"},
		star.FuncDoc{Name: "demo_kv", Summary: "The demo store of examples/demostore, each process on the node it is bound to.",
			Params: []star.Param{{Name: "timeout", Default: `"1s"`, Doc: "each request's deadline (positive)"},
				{Name: "port", Default: "8080", Doc: "its HTTP port on a real node (local nodes get their own)"}},
			Returns: "a client"},
		star.FuncDoc{Name: "starlark", Summary: "A client written in Starlark: Jepsen's client protocol.",
			Doc: "setup(node) runs once per run on every node, in parallel, before the first op; teardown(node) likewise when the run ends. " +
				"open(node) runs for each worker process on the node it is bound to and returns the connection value; a process whose op " +
				"ended info is replaced, so its successor calls open again. invoke(conn, op) gets the op as a dict (f, key when set, value, " +
				"process, node) and returns the completion as a dict: type \"ok\" | \"fail\" | \"info\", optional value (absent: the " +
				"invocation's value), optional error, and optional extra: a dict of more fields to record on the op, such as a stream " +
				"sequence or a ZooKeeper zxid (extra = {\"zxid\": 12}). Extra fields are kept in history.jsonl, exported to EDN as keys of " +
				"the op map (:zxid 12), and shown in checker explanations, the timeline and the history browser; their names may not be " +
				"an op's own fields (index, time, process, type, f, key, value, error, node, fault_epoch). close(conn) runs when the worker ends.\n\n" +
				"An error raised by invoke, a return that is not such a dict, or the op's timeout makes the op info with the message and " +
				"script position. Each worker has its own thread, with its own rand stream seeded from the run's seed and the worker; the functions and their module are frozen when the run starts.",
			Params: []star.Param{{Name: "open", Doc: "open(node) -> conn"},
				{Name: "invoke", Doc: "invoke(conn, op) -> completion dict"},
				{Name: "close", Default: "None", Doc: "close(conn)"},
				{Name: "setup", Default: "None", Doc: "setup(node), once per node per run"},
				{Name: "teardown", Default: "None", Doc: "teardown(node), once per node per run"},
				{Name: "retries", Default: "None", Doc: "how the client resends requests, in words, for the hidden-retries audit (\"never: one request per op\"); None: the audit cannot judge"},
				{Name: "hidden_retries", Default: "False", Doc: "True when a resend can take effect without the history showing it (needs retries)"}},
			Returns: "a client"},
		star.FuncDoc{Name: "exec", Summary: "Runs a command per op on the worker's node; JSON in, JSON out.",
			Doc: "stdin: the op as one JSON object (f, key when set, value, process, node, and addr when service is set; FAULTLINE_NODE and " +
				"FAULTLINE_ADDR carry the same). Exit 0: stdout is the completion (an object with \"type\" is taken as is, any other JSON " +
				"value is an ok op's value, empty stdout is ok; the object's optional \"extra\" holds more fields to record on the op, as " +
				"client.starlark's extra does). Exit 1: fail, with the \"error\" of a JSON object on stdout or the first " +
				"line of stderr. Any other exit, a signal or the timeout: info. A node that could not be reached: fail.",
			Params: []star.Param{{Name: "argv", Doc: "the command and its arguments, a list of strings"},
				{Name: "timeout", Default: `"10s"`, Doc: "each op's deadline (positive)"},
				{Name: "env", Default: "{}", Doc: "extra environment, names (shell identifiers) to strings"},
				{Name: "dir", Default: `""`, Doc: "the working directory on the node"},
				{Name: "service", Default: `""`, Doc: "the service whose client address (node.client_addr) the op gets as addr"},
				{Name: "port", Default: "0", Doc: "that service's port (needs service)"}},
			Returns: "a client"},
		star.FuncDoc{Name: "process", Summary: "A long-lived client process per worker, in any language, speaking JSON lines on stdin and stdout.",
			Doc: "The process runs on the machine running faultline (as Jepsen's clients run on its control node) and reaches its node at the " +
				"address it is given (through the proxy mesh on --local nodes, so partitions cut it). One process per worker process: " +
				"faultline writes {\"type\": \"open\", \"node\", \"process\", \"thread\", \"addr\", \"nodes\": [{\"name\", \"addr\"}]} and expects " +
				"{\"type\": \"ok\"}; then per op {\"type\": \"invoke\", \"f\", \"key\" (when set), \"value\", \"process\", \"node\", extra fields} and " +
				"expects one line {\"type\": \"ok\" | \"fail\" | \"info\", \"value\" (absent: the invocation's), \"error\", any extra fields (top-level keys, or an \"extra\" object as client.starlark returns), kept in the history}; " +
				"last {\"type\": \"close\"}. No reply within the timeout, the process exiting, or a reply that is not such an object makes the op info " +
				"and kills the process; the thread's next process starts a fresh one with its own open. A refused open fails the op that needed it. " +
				"Each process's stderr goes to logs/client-process/p<process>-<node>.stderr.log in the run's artifacts. FAULTLINE_NODE, FAULTLINE_PROCESS " +
				"and FAULTLINE_ADDR are in its environment. The whole protocol: docs/client-process.md.",
			Params: []star.Param{{Name: "argv", Doc: "the command and its arguments, a list of strings", Example: `["python3", "client.py"]`},
				{Name: "timeout", Default: `"10s"`, Doc: "the open handshake's and each op's deadline (positive)"},
				{Name: "env", Default: "{}", Doc: "extra environment, names (shell identifiers) to strings"},
				{Name: "dir", Default: `""`, Doc: "the working directory, relative to the directory of the file that calls client.process"},
				{Name: "service", Default: `""`, Doc: "the service whose client address (node.client_addr) the process gets as addr"},
				{Name: "port", Default: "0", Doc: "that service's port (needs service)"}},
			Returns: "a client"},
	)
	star.DocumentType(star.TypeDoc{Name: "client", Summary: "A client, for scenario(client = ...).", From: "every client.* builtin"})
}
