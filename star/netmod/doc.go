package netmod

import "github.com/faultline/faultline/star"

// The reference of the "net" module and its connections
// (docs/starlark.md); parameter names and defaults follow UnpackArgs.

func init() {
	star.Describe("net", "Plain TCP connections for clients written in Starlark (client.starlark).",
		"Every blocking call also ends when the calling thread's context does: the op timed out or the run stopped, "+
			"so a hung server costs one op, not the run.")
	star.Document("net", star.FuncDoc{Name: "dial", Summary: "Opens a TCP connection to addr.",
		Params: []star.Param{{Name: "addr", Doc: `host:port, e.g. node.client_addr("redis", 6379)`},
			{Name: "timeout", Default: `"5s"`, Doc: "bounds the dial (positive)"}},
		Returns: "a net.conn; an error when the dial fails"})
	star.DocumentType(star.TypeDoc{Name: "net.conn", Receiver: "conn", Summary: "An open TCP connection.",
		From: "net.dial()", Doc: "True while open. Safe to use from several threads, one call at a time.",
		Fields: []star.Field{{Name: "addr", Doc: "the address it was dialled at"}},
		Methods: []star.FuncDoc{
			{Name: "send", Summary: "Writes data.", Params: []star.Param{{Name: "data", Doc: "bytes or a string"}}, Returns: "the number of bytes written"},
			{Name: "read_line", Summary: "Reads one line.", Returns: `the line as a string, without its "\n" or "\r\n" (at most 1 MiB)`},
			{Name: "read", Summary: "Reads exactly n bytes.", Params: []star.Param{{Name: "n", Doc: "how many bytes (0 to 16 MiB)"}}, Returns: "bytes"},
			{Name: "set_deadline", Summary: "Every later call must finish within d of now.",
				Params: []star.Param{{Name: "d", Doc: "a duration, or None to clear the deadline", Example: `"500ms"`}}, Returns: "None"},
			{Name: "close", Summary: "Closes the connection (again is a no-op).", Returns: "None"},
		}})
}
