package netmod

import "github.com/faultline/faultline/star"

// The reference of the "net" module and its connections
// (docs/starlark.md); parameter names and defaults follow UnpackArgs.

// netDoc is the module's prose: errors as values and the retry-until-ready
// idiom, which a client author needs before any single function.
const netDoc = "Every blocking call also ends when the calling thread's context does: the op timed out or the run stopped, " +
	"so a hung server costs one op, not the run.\n\n" +
	"**Errors as values.** Starlark cannot catch an error, so every call takes `raise_errors = False`: a failure then comes back " +
	"as an `error` value (falsy; `net.is_error(v)` tells it from a result) whose `error_kind` says what it means for the op, " +
	"the same in every protocol module (net, http, redis, sql):\n\n" +
	"| error_kind | what happened | record the op as |\n|---|---|---|\n" +
	"| `not-sent` | the dial failed (refused, no such host, dial timeout) or no byte of the request was written | `fail`: it certainly did not happen |\n" +
	"| `unknown` | the connection failed or timed out after the request was written | `info`: it may have happened |\n" +
	"| `refused` | the system answered with an error (redis, sql; for net and http the answer is the script's to read) | `fail` |\n\n" +
	"`e.op_type` is that column, so an invoke can end with `return {\"type\": e.op_type, \"error\": e.error}`. Without " +
	"`raise_errors = False` a failure raises, and the op is recorded `info` — a refused connection too.\n\n" +
	"```python\n" +
	"def invoke(conn, op):\n" +
	"    c = net.dial(conn.addr, timeout = \"1s\", raise_errors = False)\n" +
	"    if net.is_error(c):\n" +
	"        return {\"type\": c.op_type, \"error\": c.error}    # not-sent: fail\n" +
	"    sent = c.send(\"GET %s\\n\" % op[\"key\"], raise_errors = False)\n" +
	"    line = c.read_line(raise_errors = False) if not net.is_error(sent) else sent\n" +
	"    c.close()\n" +
	"    if net.is_error(line):\n" +
	"        return {\"type\": line.op_type, \"error\": line.error}  # unknown after sending: info\n" +
	"    if line.startswith(\"-\"):\n" +
	"        return {\"type\": \"fail\", \"error\": line[1:]}           # the server said no\n" +
	"    return {\"type\": \"ok\", \"value\": int(line)}\n" +
	"```\n\n" +
	"**Retry until ready.** A system that is still starting refuses connections; db setup should wait for it with a " +
	"deadline rather than fail the run:\n\n" +
	"```python\n" +
	"def wait_ready(addr, within = 30):\n" +
	"    deadline = time.now() + time.parse_duration(\"%ds\" % within)\n" +
	"    for _ in range(1000000):            # Starlark has no while\n" +
	"        c = net.dial(addr, timeout = \"1s\", raise_errors = False)\n" +
	"        if not net.is_error(c):\n" +
	"            c.send(\"PING\\n\")\n" +
	"            if c.read_line(raise_errors = False) == \"+PONG\":\n" +
	"                c.close()\n" +
	"                return\n" +
	"            c.close()\n" +
	"        if time.now() > deadline:\n" +
	"            fail(\"%s not ready after %ds: %s\" % (addr, within, c.error if net.is_error(c) else \"no PONG\"))\n" +
	"        control.sleep(\"200ms\")\n" +
	"```\n\n" +
	"**Binary protocols.** `c.read_frame(prefix)` reads one length-prefixed frame; the `binary` module packs and unpacks " +
	"what goes in it (see its worked example)."

func init() {
	star.Describe("net", "Plain TCP connections for clients written in Starlark (client.starlark).", netDoc)
	raise := star.Param{Name: "raise_errors", Default: "True", Doc: "False returns a failure as an error value (error_kind not-sent or unknown) instead of raising"}
	star.Document("net", star.FuncDoc{Name: "dial", Summary: "Opens a TCP connection to addr.",
		Params: []star.Param{{Name: "addr", Doc: `host:port, e.g. node.client_addr("redis", 6379)`},
			{Name: "timeout", Default: `"5s"`, Doc: "bounds the dial (positive)"},
			{Name: "raise_errors", Default: "True", Doc: `False: a failed dial returns an error value (error_kind "not-sent") instead of raising`}},
		Returns: "a net.conn; an error when the dial fails"},
		star.FuncDoc{Name: "is_error", Summary: "Whether v is an error value (of net or any other protocol module).",
			Params: []star.Param{{Name: "v", Positional: true, Doc: "any value"}}, Returns: "a bool"})
	star.DocumentType(star.TypeDoc{Name: "net.conn", Receiver: "conn", Summary: "An open TCP connection.",
		From: "net.dial()", Doc: "True while open. Safe to use from several threads, one call at a time. " +
			"A failure after bytes of a request were written (since the last read that returned data) is \"unknown\"; " +
			"one before is \"not-sent\".",
		Fields: []star.Field{{Name: "addr", Doc: "the address it was dialled at"}},
		Methods: []star.FuncDoc{
			{Name: "send", Summary: "Writes data.", Params: []star.Param{{Name: "data", Doc: "bytes or a string"}, raise}, Returns: "the number of bytes written"},
			{Name: "read_line", Summary: "Reads one line.", Params: []star.Param{raise}, Returns: `the line as a string, without its "\n" or "\r\n" (at most 1 MiB)`},
			{Name: "read", Summary: "Reads exactly n bytes.", Params: []star.Param{{Name: "n", Doc: "how many bytes (0 to 16 MiB)"}, raise}, Returns: "bytes"},
			{Name: "read_frame", Summary: "Reads one length-prefixed frame: the length in prefix's layout, then that many bytes.",
				Params: []star.Param{{Name: "prefix", Default: `">I"`, Doc: `one integer code of the binary module's format (">I", "<H", "B", ...), or "uvarint"`},
					{Name: "max", Default: "16777216", Doc: "the largest frame accepted; a longer one is an error"}, raise},
				Returns: "the frame's payload as bytes, without its prefix"},
			{Name: "set_deadline", Summary: "Every later call must finish within d of now.",
				Params: []star.Param{{Name: "d", Doc: "a duration, or None to clear the deadline", Example: `"500ms"`}}, Returns: "None"},
			{Name: "close", Summary: "Closes the connection (again is a no-op).", Returns: "None"},
		}})
}
