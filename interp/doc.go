package interp

import "github.com/faultline/faultline/star"

// The reference of the interpreter's own predeclared names
// (docs/starlark.md): scenario, budget and struct, the seeded rand module,
// and starlark-go's json, math and time. Parameter names, order and
// defaults follow scenarioBuiltin's and budgetBuiltin's UnpackArgs calls
// and starlark-go's (go.starlark.net/lib).

func init() {
	star.Describe("", "Names every script sees besides the modules.", "")
	star.Document("",
		star.FuncDoc{Name: "scenario", Summary: "Declares one scenario of the script: what to run, against what, judged how.",
			Doc: "May only be called while the script loads; names are unique per script. The client, checker, nemesis and landing " +
				"arguments are checked at load time, so a bad script fails before anything runs.",
			Params: []star.Param{
				{Name: "name", Doc: "the scenario's name: non-empty, no spaces or slashes (it names a directory)"},
				{Name: "client", Doc: "a client (client.*)"},
				{Name: "workload", Doc: "a generator of client ops"},
				{Name: "checker", Doc: "a checker (check.*)"},
				{Name: "concurrency", Default: "5", Doc: `worker processes: an int (at least 1) or a string such as "2n" (per node)`},
				{Name: "nodes", Default: "None", Doc: `the node names; None is ["n1", "n2", "n3"]`, Example: `["n1", "n2", "n3"]`},
				{Name: "budgets", Default: "None", Doc: `a dict from tier ("smoke", "hardening", "release") to budget(...); None is 10s at one seed`, Example: `{"smoke": budget("10s")}`},
				{Name: "op_timeout", Default: `"5s"`, Doc: "each op's deadline; an op past it is info"},
				{Name: "falsifies", Default: "None", Doc: "the claims a failure of this scenario falsifies, a list of strings", Example: `["no lost writes"]`},
				{Name: "description", Default: `""`, Doc: "what the scenario tests"},
				{Name: "time", Default: `"auto"`, Doc: `"auto", "virtual" (simulated time: in-process clients only) or "real"`},
				{Name: "nemesis", Default: "None", Doc: "a nemesis package (nemesis.*) or generator, or a dict of them by tier", Example: "nemesis.partition()"},
				{Name: "landing", Default: "None", Doc: "evidence the faults took effect: an evidence.* value or a list (needs a nemesis)", Example: "[evidence.landed()]"},
				{Name: "db", Default: "None", Doc: "a db recipe: a struct with setup(node) and teardown(node), optionally primaries() -> [names] (while it names none, as between leaders, a \"primaries\" fault asks again for up to 10 s), logs (paths on every node, saved before teardown and read by the log audit, RF7), log_alarms and log_expected (patterns, as system_logs' alarms and expected)"},
				{Name: "final", Default: "None", Doc: "a generator of client ops run once after the workload and the final heal (the dump no_lost_ack judges)"},
				{Name: "final_timeout", Default: `"30s"`, Doc: "bounds the final phase (positive)"},
				{Name: "logs", Default: "None", Doc: "where the system's logs are, for the log audit (RF7): system_logs(...), or a list of paths on every node; added to the db recipe's", Example: `system_logs(none = "a managed service; its logs are not reachable")`},
			},
			Returns: "None"},
		star.FuncDoc{Name: "system_logs", Summary: "Where a system's logs are and what in them fails a run, for scenario(logs = ...) or a db recipe's logs field; or why it has none faultline can reach.",
			Doc: "Red flag RF7 (no swallowed errors) reads every declared log after the run and before teardown. A line an alarm matches blocks a PASS, quoted with file:line and the alarm, unless an expected pattern matches it too. " +
				"A declared log that is missing, empty or unreadable is not clean: RF7 cannot judge and names it. A suite that declares nothing gets cannot-judge with what to write; none = \"why\" makes RF7 n/a with the reason shown. " +
				"Patterns are Go regular expressions (RE2), case-sensitive unless they start with (?i), matched anywhere in a line. " +
				"The default alarms name what only a bug writes: Go `panic: `, `fatal error: `, `WARNING: DATA RACE`; Rust `panicked at`; JVM `Exception in thread \"`, the java.lang exceptions that are programming errors (NullPointer, IllegalState, IllegalArgument, IndexOutOfBounds, ClassCast, ...), java.lang.*Error, java.util.ConcurrentModificationException, a JVM crash report; the levels FATAL, SEVERE, PANIC; sanitizer reports (`ERROR: AddressSanitizer`, `WARNING: ThreadSanitizer`, `runtime error: `), failed assertions, `terminate called after throwing`; Python `Traceback (most recent call last)`; Erlang `CRASH REPORT`; structured fatal/panic levels. " +
				"What a fault makes a correct system write matches none of them: java.net.ConnectException, java.io.EOFException, KeeperException$ConnectionLossException are checked I/O exceptions, at whatever level they are logged; java.lang.NullPointerException alarms at any level. " +
				"For a stricter audit add alarms (alarms = [\"\\\\bERROR\\\\b\"]) and declare the lines a fault explains as expected. In a plan's suite (faultline.star), give the suite struct a logs field: suite = struct(..., logs = system_logs(...)).",
			Params: []star.Param{
				{Name: "paths", Default: "[]", Doc: "log files on every node, fetched into the run's logs/<node>/; relative paths resolve in the node's directory (a --local node's, the login directory over SSH)", Example: `["zk/zookeeper.log"]`},
				{Name: "local_paths", Default: "[]", Doc: "absolute paths of log files on the machine faultline runs on (a system it does not run on nodes), copied into logs/host/"},
				{Name: "alarms", Default: "[]", Doc: "patterns that fail the run, besides the defaults", Example: `["\\bERROR\\b"]`},
				{Name: "expected", Default: "[]", Doc: "patterns of lines that never fail the run, even when an alarm matches them", Example: `["ConnectionLossException"]`},
				{Name: "default_alarms", Default: "True", Doc: "False drops the default alarms (alarms must then name some)"},
				{Name: "none", Default: `""`, Doc: "why the system has no logs faultline can reach (no paths may be given then): RF7 is n/a, with this reason in the findings"},
			},
			Returns: "a system_logs value"},
		star.FuncDoc{Name: "budget", Summary: "Bounds one run of a scenario at one tier.",
			Params: []star.Param{
				{Name: "duration", Doc: "the workload's length (positive)"},
				{Name: "ops", Default: "0", Doc: "stop issuing client ops after this many; 0 is no limit"},
				{Name: "steps", Default: "0", Doc: "the Starlark step limit for generator callbacks; 0 is the default"},
				{Name: "faults", Default: "0", Doc: "faults that must have landed for the run to count"},
				{Name: "seeds", Default: "1", Doc: "distinct seeds the tier requires (at least 1)"},
				{Name: "min_ops", Default: "0", Doc: "client ops that must end with a known outcome (ok or fail; an info op may never have happened) for the run to count"},
			},
			Returns: "a budget value"},
		star.FuncDoc{Name: "param", Summary: "A value given on the command line with `faultline run SCRIPT -p name=VALUE`, or default.",
			Doc: "The value is converted to the type of default: an int, float or bool default makes -p name=VALUE parse as one (a value that does not is a usage error naming the flag, exit 64); " +
				"a string or None default takes the text as it is. Parameters are read while the script loads (at top level, or in a function it calls), not from a client or generator at run time: keep the value in a global. " +
				"A -p the script never reads is a usage error naming it, so a typo cannot run another test silently. The values are recorded in each run's schedule, so `faultline replay`, `faultline reduce` and `faultline heal --session` load the script with the same ones, and the reproduce command repeats them. " +
				"For a plan, -p reaches the suite (faultline.star) the compiled scenarios load. Example: bug = param(\"bug\", \"\") selects a planted bug with -p bug=stale-reads (examples/byo-http/tunable.star).",
			Params: []star.Param{
				{Name: "name", Doc: "the parameter's name, as -p spells it (letters, digits, _, - and .)", Example: `"bug"`},
				{Name: "default", Default: "None", Doc: "the value when -p does not give one; its type is the type -p's value is read as"},
			},
			Returns: "the value: default's type (a string when default is None)"},
		star.FuncDoc{Name: "struct", Summary: "A struct whose fields are the keyword arguments (starlark-go's starlarkstruct).",
			Doc:    "db recipes are structs: struct(setup = setup, teardown = teardown, primaries = primaries, logs = [...], log_alarms = [...], log_expected = [...]).",
			Params: []star.Param{{Name: "**fields", Doc: "the fields"}}, Returns: "a struct"},
	)
	star.DocumentType(star.TypeDoc{Name: "budget", Summary: "One tier's budget, for scenario(budgets = {...}).", From: "budget()"})
	star.DocumentType(star.TypeDoc{Name: "system_logs", Summary: "Where a system's logs are and what in them fails a run, for scenario(logs = ...).", From: "system_logs()"})

	star.Describe("rand", "Seeded randomness: draws come from the run's seeded stream, so the same seed makes the same choices.",
		"Only where a seeded stream exists (the script's top level, generator functions); elsewhere, client code included, a draw fails rather than break replay. "+
			"Positional arguments only.")
	star.Document("rand",
		star.FuncDoc{Name: "int", Summary: "An int in [0, n), or with two arguments in [lo, hi).", Signature: "rand.int(n) | rand.int(lo, hi)",
			Params: []star.Param{{Name: "n", Positional: true, Doc: "the bound (or lo when hi is given)"},
				{Name: "hi", Default: "(none)", Positional: true, Doc: "the upper bound, exclusive"}},
			Returns: "an int"},
		star.FuncDoc{Name: "float", Summary: "A float in [0, 1).", Returns: "a float"},
		star.FuncDoc{Name: "choice", Summary: "A uniformly chosen element of seq.", Params: []star.Param{{Name: "seq", Positional: true, Doc: "a non-empty list, tuple or string"}},
			Returns: "the element"},
	)

	const lib = "https://github.com/google/starlark-go/blob/master/lib/"
	star.Describe("json", "JSON encoding and decoding (starlark-go's lib/json).", "")
	star.DescribeUpstream("json", lib+"json/json.go")
	x := star.Param{Name: "x", Positional: true, Doc: "the value"}
	indent := []star.Param{{Name: "prefix", Default: `""`, Doc: "each line's prefix"}, {Name: "indent", Default: `"\t"`, Doc: "one level's indent"}}
	star.Document("json",
		star.FuncDoc{Name: "encode", Summary: "x as JSON (dicts with string keys, lists, tuples, numbers, strings, bools, None, structs).",
			Params: []star.Param{x}, Returns: "a string"},
		star.FuncDoc{Name: "encode_indent", Summary: "x as indented JSON.", Params: append([]star.Param{x}, indent...), Returns: "a string"},
		star.FuncDoc{Name: "decode", Summary: "The value a JSON string denotes.",
			Params:  []star.Param{{Name: "x", Positional: true, Example: `"{}"`, Doc: "the JSON text"}, {Name: "default", Default: "(raise)", Example: "None", Doc: "returned instead of raising when x is not valid JSON"}},
			Returns: "the value (objects as dicts, arrays as lists)"},
		star.FuncDoc{Name: "indent", Summary: "JSON text re-indented.", Params: append([]star.Param{{Name: "s", Positional: true, Doc: "JSON text"}}, indent...), Returns: "a string"},
	)

	star.Describe("math", "Floating-point math (starlark-go's lib/math). Positional arguments only; ints are accepted as floats.", "")
	star.DescribeUpstream("math", lib+"math/math.go")
	unary := map[string]string{
		"ceil": "the least integer ≥ x", "floor": "the greatest integer ≤ x", "fabs": "|x|", "round": "x rounded half away from zero",
		"exp": "e**x", "sqrt": "√x", "acos": "arc cosine", "asin": "arc sine", "atan": "arc tangent", "cos": "cosine", "sin": "sine", "tan": "tangent",
		"degrees": "radians to degrees", "radians": "degrees to radians", "acosh": "inverse hyperbolic cosine", "asinh": "inverse hyperbolic sine",
		"atanh": "inverse hyperbolic tangent", "cosh": "hyperbolic cosine", "sinh": "hyperbolic sine", "tanh": "hyperbolic tangent", "gamma": "the Gamma function",
	}
	for name, what := range unary {
		ret := "a float"
		if name == "ceil" || name == "floor" {
			ret = "an int"
		}
		star.Document("math", star.FuncDoc{Name: name, Summary: "math." + name + "(x): " + what + ".", Params: []star.Param{{Name: "x", Positional: true, Doc: "a number"}}, Returns: ret})
	}
	binary := map[string]string{"copysign": "x with the sign of y", "mod": "the floating-point remainder of x/y (sign of x)",
		"pow": "x**y", "remainder": "the IEEE 754 remainder of x/y", "atan2": "atan(y/x) by the signs of both", "hypot": "√(x² + y²)"}
	for name, what := range binary {
		star.Document("math", star.FuncDoc{Name: name, Summary: "math." + name + "(x, y): " + what + ".",
			Params: []star.Param{{Name: "x", Positional: true, Doc: "a number"}, {Name: "y", Positional: true, Doc: "a number"}}, Returns: "a float"})
	}
	star.Document("math", star.FuncDoc{Name: "log", Summary: "The logarithm of x, natural or to base.",
		Params:  []star.Param{{Name: "x", Positional: true, Doc: "a number"}, {Name: "base", Default: "math.e", Positional: true, Doc: "the base"}},
		Returns: "a float"})
	star.DocumentConstants("math", star.Field{Name: "e", Doc: "Euler's number"}, star.Field{Name: "pi", Doc: "π"})

	star.Describe("time", "Times and durations (starlark-go's lib/time).",
		"Time and duration values have methods and fields of their own (t.year, t.unix, t.format(layout), d.seconds, ...): see upstream. "+
			"faultline's own duration arguments take strings such as \"5s\" or numbers of seconds, not these values.")
	star.DescribeUpstream("time", lib+"time/time.go")
	star.Document("time",
		star.FuncDoc{Name: "now", Summary: "The current wall-clock time (not seeded: replays differ).",
			Params:  []star.Param{{Name: "*args", Doc: "ignored"}, {Name: "**kwargs", Doc: "ignored: starlark-go's now() does not check its arguments"}},
			Returns: "a time"},
		star.FuncDoc{Name: "parse_duration", Summary: `A duration from a string such as "1h30m".`, Params: []star.Param{{Name: "d", Positional: true, Doc: "the string (or a duration)"}}, Returns: "a duration"},
		star.FuncDoc{Name: "parse_time", Summary: "A time parsed from a string.",
			Params: []star.Param{{Name: "x", Doc: "the string"}, {Name: "format", Default: `"2006-01-02T15:04:05Z07:00"`, Doc: "a Go time layout"},
				{Name: "location", Default: `"UTC"`, Doc: "an IANA time zone"}},
			Returns: "a time"},
		star.FuncDoc{Name: "from_timestamp", Summary: "The time sec seconds (and nsec nanoseconds) after the Unix epoch.",
			Params:  []star.Param{{Name: "sec", Positional: true, Doc: "seconds"}, {Name: "nsec", Default: "0", Positional: true, Doc: "nanoseconds"}},
			Returns: "a time"},
		star.FuncDoc{Name: "is_valid_timezone", Summary: "Whether loc names a time zone.", Params: []star.Param{{Name: "loc", Positional: true, Doc: "an IANA name"}}, Returns: "a bool"},
		star.FuncDoc{Name: "time", Summary: "The time of the given fields.",
			Params: []star.Param{{Name: "year", Default: "0", Doc: ""}, {Name: "month", Default: "0", Doc: ""}, {Name: "day", Default: "0", Doc: ""},
				{Name: "hour", Default: "0", Doc: ""}, {Name: "minute", Default: "0", Doc: ""}, {Name: "second", Default: "0", Doc: ""},
				{Name: "nanosecond", Default: "0", Doc: ""}, {Name: "location", Default: `""`, Doc: `an IANA time zone; "" is UTC`}},
			Returns: "a time"},
	)
	star.DocumentConstants("time",
		star.Field{Name: "nanosecond", Doc: "a duration of 1ns"}, star.Field{Name: "microsecond", Doc: "1µs"}, star.Field{Name: "millisecond", Doc: "1ms"},
		star.Field{Name: "second", Doc: "1s"}, star.Field{Name: "minute", Doc: "1m"}, star.Field{Name: "hour", Doc: "1h"})
}
