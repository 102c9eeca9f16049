package redismod

import "github.com/faultline/faultline/star"

// The reference of the "redis" module and its values (docs/starlark.md);
// parameter names and defaults follow UnpackArgs and raiseErrors.

func init() {
	star.Describe("redis", "Redis connections speaking RESP2, for clients written in Starlark (client.starlark).",
		"Replies map to Starlark as simple and bulk strings → str, null → None, integer → int, array → list. "+
			"An error reply raises with the server's message; with raise_errors = False it is returned as a redis.error instead "+
			"(io False), and a lost connection or timeout as one with io True: the difference a client needs between "+
			"\"refused\" (fail) and \"no answer\" (info). After a connection error the connection is out of step and every later call fails: open a new one.")
	raise := star.Param{Name: "raise_errors", Default: "True", Doc: "raise on an error reply or a connection error; False returns a redis.error"}
	star.Document("redis",
		star.FuncDoc{Name: "dial", Summary: "Opens a connection to a Redis server.",
			Params: []star.Param{{Name: "addr", Doc: "host:port"},
				{Name: "timeout", Default: `"5s"`, Doc: "bounds the dial and every later command (positive)"},
				{Name: "raise_errors", Default: "True", Doc: "False: a failed dial returns a redis.error (io True) instead of raising"}},
			Returns: "a redis.conn, or a redis.error when the dial failed and raise_errors is False"},
		star.FuncDoc{Name: "is_error", Summary: "Whether v is a redis.error (or any protocol module's error value).", Params: []star.Param{{Name: "v", Positional: true, Doc: "any value"}}, Returns: "a bool"},
	)
	star.DocumentType(star.TypeDoc{Name: "redis.conn", Receiver: "c", Summary: "An open Redis connection.", From: "redis.dial()",
		Doc:    "True while open and in step. Safe to use from several threads, one call at a time.",
		Fields: []star.Field{{Name: "addr", Doc: "the address it was dialled at"}},
		Methods: []star.FuncDoc{
			{Name: "do", Summary: "Sends one command and reads its reply.", Doc: `c.do("SET", "k", "v"); c.do("WAIT", 2, 500)`,
				Params:  []star.Param{{Name: "*args", Doc: "the command and its arguments: str, bytes, int or float"}, raise},
				Returns: "the reply; a redis.error for an error reply when raise_errors is False"},
			{Name: "pipeline", Summary: "Sends several commands in one round trip.", Doc: `c.pipeline([["INCR", "n"], ["GET", "n"]])`,
				Params:  []star.Param{{Name: "commands", Positional: true, Doc: "a list of commands, each a list of arguments"}, raise},
				Returns: "the list of replies (error replies as redis.error values when raise_errors is False)"},
			{Name: "close", Summary: "Closes the connection.", Returns: "None"},
		}})
	star.DocumentType(star.TypeDoc{Name: "redis.error", Receiver: "e", Summary: "An error reply or a connection error, returned when raise_errors is False.",
		From: "redis.dial(), c.do(), c.pipeline() with raise_errors = False", Doc: "Falsy.",
		Fields: []star.Field{
			{Name: "message", Doc: `the server's message ("NOREPLICAS Not enough good replicas to write.") or the connection error`},
			{Name: "kind", Doc: `the message's first word ("READONLY", "NOREPLICAS"); "IO" for a connection error`},
			{Name: "io", Doc: "True for a connection error or timeout (no answer: the op's fate is unknown)"},
			{Name: "ok", Doc: "False"},
			{Name: "error_kind", Doc: `"refused" for an error reply; "not-sent" when the dial failed or nothing was written; "unknown" when the connection failed after the command was written (as every error value, see the error type)`},
			{Name: "error", Doc: "the message, as message"},
			{Name: "op_type", Doc: `"fail" for refused and not-sent, "info" for unknown: the completion type to record`},
		}})
}
