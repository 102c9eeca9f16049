package sqlmod

import "github.com/faultline/faultline/star"

// The reference of the "sql" module and its values (docs/starlark.md);
// parameter names and defaults follow UnpackArgs.

func init() {
	star.Describe("sql", "database/sql over pgx (PostgreSQL) and go-sql-driver (MySQL, MariaDB, Galera), for clients written in Starlark.",
		"Starlark has no try/except, so an error raised here ends the op, and the module says what that means for the history: "+
			"an error before COMMIT, or one the server returned (a serialization failure, a deadlock, a constraint), is a definite failure "+
			"and the op is recorded as fail; a lost connection at COMMIT or in an autocommit statement leaves the outcome open and the op "+
			"is recorded as info. Every call stops with the op's context. exec, query, begin and commit take raise_errors = False: then a failure "+
			"is returned as an error value whose error_kind is \"refused\" (the server returned it), \"not-sent\" (nothing that could commit was sent: "+
			"before COMMIT, or no connection) or \"unknown\" (a lost connection at COMMIT or in autocommit).")
	star.Document("sql", star.FuncDoc{Name: "open", Summary: "A small connection pool to a database (connects lazily).",
		Params: []star.Param{{Name: "driver", Doc: `"postgres" or "mysql" (MySQL, MariaDB, Galera)`},
			{Name: "dsn", Doc: "the driver's data source name (a postgres:// URL, or user:pass@tcp(host:port)/db)"},
			{Name: "max_conns", Default: "2", Doc: "the most open connections (at least 1)"}},
		Returns: "a sql.db"})
	raise := star.Param{Name: "raise_errors", Default: "True", Doc: "False returns a failure as an error value instead of raising"}
	stmt := func(what string) []star.Param {
		return []star.Param{{Name: "query", Positional: true, Doc: "the statement, with the driver's placeholders ($1 or ?)"},
			{Name: "*args", Doc: what + " placeholder values: None, bool, int, float or str"}, raise}
	}
	star.DocumentType(star.TypeDoc{Name: "sql.db", Receiver: "db", Summary: "An open database handle (a small connection pool).", From: "sql.open()",
		Methods: []star.FuncDoc{
			{Name: "exec", Summary: "Runs a statement in autocommit.", Params: stmt("the"), Returns: "the number of rows affected"},
			{Name: "query", Summary: "Runs a query in autocommit.", Params: stmt("the"), Returns: "a list of rows, each a tuple"},
			{Name: "begin", Summary: "Begins a transaction on a connection of its own.",
				Doc: "A transaction this thread left open (invoke returned without commit or rollback) is rolled back first.",
				Params: []star.Param{{Name: "isolation", Default: `""`, Doc: `"serializable", "repeatable-read", "read-committed" or "read-uncommitted"; "" is the server's default`},
					{Name: "read_only", Default: "False", Doc: "a read-only transaction"}, raise},
				Returns: "a sql.tx; an error value when it failed and raise_errors is False"},
			{Name: "close", Summary: "Closes the pool.", Returns: "None"},
		}})
	star.DocumentType(star.TypeDoc{Name: "sql.tx", Receiver: "tx", Summary: "An open transaction; an error in any statement rolls it back.", From: "db.begin()",
		Methods: []star.FuncDoc{
			{Name: "exec", Summary: "Runs a statement in the transaction.", Params: stmt("the"), Returns: "the number of rows affected"},
			{Name: "query", Summary: "Runs a query in the transaction.", Params: stmt("the"), Returns: "a list of rows, each a tuple"},
			{Name: "commit", Summary: "Commits; a connection lost here makes the op info.", Params: []star.Param{raise}, Returns: "None"},
			{Name: "rollback", Summary: "Rolls back.", Returns: "None"},
		}})
}
