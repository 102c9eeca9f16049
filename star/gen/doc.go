package gen

import "github.com/faultline/faultline/star"

// The reference of the "gen" module (docs/starlark.md); parameter names,
// order and defaults follow each builtin's UnpackArgs call in module.go.

// genParam is the generator argument most combinators take.
func genParam(name string) star.Param {
	return star.Param{Name: name, Doc: "a generator: an op dict, a list, a function, or a `gen.*` value"}
}

var (
	durParam = star.Param{Name: "dt", Doc: `a duration: a string such as "10ms" or a number of seconds`}
	fnParam  = func(doc string) star.Param { return star.Param{Name: "fn", Doc: doc} }
)

func init() {
	star.Describe("gen", "Generators of operations: the combinator algebra of Jepsen's generator library.",
		`Every argument that takes a generator accepts an op dict ({"f": "read", "key": 1, "value": None}; f required, `+
			`time in ns or a duration string, other keys kept as extras), a list or tuple (each element in turn), a function `+
			`(called with no arguments whenever its previous result is exhausted; returns any of these, or None to end), `+
			`None (nothing), or a value a gen.* builtin returned. Every builtin returns a generator.`)
	star.Document("gen",
		star.FuncDoc{Name: "once", Summary: "The first op of g only.", Params: []star.Param{genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "limit", Summary: "At most n ops of g.", Params: []star.Param{{Name: "n", Doc: "the most ops passed through (not negative)"}, genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "repeat", Summary: "Asks g for an op over and over without advancing it; with n, only n ops.",
			Doc:       "repeat({\"f\": \"read\"}) is an endless stream of reads; a function is called afresh each time. Positional arguments only: repeat(g) or repeat(n, g), as in Jepsen.",
			Signature: "gen.repeat([n,] g)",
			Params: []star.Param{{Name: "n", Default: "(no limit)", Example: "3", Positional: true, Doc: "how many ops; leave it out for no limit"},
				{Name: "g", Positional: true, Doc: "a generator"}},
			Returns: "a generator"},
		star.FuncDoc{Name: "cycle", Summary: "Runs g to exhaustion, then again from the start, for ever; with n, n runs.",
			Doc:       "A g exhausted right after a restart ends the cycle, so an empty g cannot spin. Positional arguments only: cycle(g) or cycle(n, g).",
			Signature: "gen.cycle([n,] g)",
			Params: []star.Param{{Name: "n", Default: "(no limit)", Example: "3", Positional: true, Doc: "how many runs of g; leave it out for no limit"},
				{Name: "g", Positional: true, Doc: "a generator"}},
			Returns: "a generator"},
		star.FuncDoc{Name: "mix", Summary: "One of gens, picked uniformly at random (seeded) for each op.",
			Doc:    "Exhausted generators are dropped. Like Jepsen's mix it ignores updates.",
			Params: []star.Param{{Name: "gens", Doc: "a list of generators"}}, Returns: "a generator"},
		star.FuncDoc{Name: "any", Summary: "The soonest op of any of the generators (ties go to the earliest listed).",
			Doc:    "Updates go to all of them; exhausted when all of them are. Takes no keyword arguments.",
			Params: []star.Param{{Name: "*gens", Doc: "generators"}}, Returns: "a generator"},
		star.FuncDoc{Name: "each_thread", Summary: "Every thread gets its own copy of g.", Params: []star.Param{genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "reserve", Summary: "Splits the client threads into groups, each running its own generator.",
			Doc:       "The first n1 threads run g1, the next n2 run g2, ..., and the remaining threads (and the nemesis) run default. Positional arguments only.",
			Signature: "gen.reserve(n1, g1, n2, g2, ..., default)",
			Params:    []star.Param{{Name: "*args", Doc: "thread counts and generators in turn, then the default generator"}},
			Returns:   "a generator"},
		star.FuncDoc{Name: "clients", Summary: "g restricted to client threads; with other, other on the nemesis thread too.",
			Params:  []star.Param{genParam("g"), {Name: "other", Default: "None", Doc: "a generator for the nemesis thread (gen.any(clients(g), nemesis(other)))"}},
			Returns: "a generator"},
		star.FuncDoc{Name: "nemesis", Summary: "g restricted to the nemesis thread; with other, other on the client threads too.",
			Params:  []star.Param{genParam("g"), {Name: "other", Default: "None", Doc: "a generator for the client threads"}},
			Returns: "a generator"},
		star.FuncDoc{Name: "on_threads", Summary: "g restricted to the threads fn accepts.",
			Params:  []star.Param{fnParam("fn(thread) -> bool; thread is an int, or \"nemesis\""), genParam("g")},
			Returns: "a generator"},
		star.FuncDoc{Name: "map", Summary: "Each op of g passed through fn.",
			Params:  []star.Param{fnParam("fn(op) -> op: takes and returns an op dict (process and type stay the interpreter's)"), genParam("g")},
			Returns: "a generator"},
		star.FuncDoc{Name: "filter", Summary: "Only the ops of g that fn accepts.",
			Params:  []star.Param{fnParam("fn(op) -> bool, given the op dict"), genParam("g")},
			Returns: "a generator"},
		star.FuncDoc{Name: "f_map", Summary: "Renames the f of g's ops.",
			Doc:     "Lifts a generator written for one nemesis onto a composed nemesis whose ops have distinct names; fs not in mapping are kept.",
			Params:  []star.Param{{Name: "mapping", Doc: `a dict from old f to new f, strings to strings: {"start": "start-partition"}`}, genParam("g")},
			Returns: "a generator"},
		star.FuncDoc{Name: "time_limit", Summary: "g's ops until dt has passed since its first op.",
			Params: []star.Param{durParam, genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "stagger", Summary: "g's ops spaced by a random interval uniform in [0, 2·dt): a mean rate of one per dt across all threads.",
			Params: []star.Param{durParam, genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "delay", Summary: "g's ops exactly dt apart on a fixed grid from the first op.",
			Params: []star.Param{durParam, genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "sleep", Summary: "One special op that keeps a free thread idle for dt (not recorded).",
			Params: []star.Param{durParam}, Returns: "a generator"},
		star.FuncDoc{Name: "log", Summary: "One special op that writes msg to the run's log (not recorded; needs no free thread).",
			Params: []star.Param{{Name: "msg", Doc: "the message"}}, Returns: "a generator"},
		star.FuncDoc{Name: "synchronize", Summary: "Waits until every thread g may use is idle, then becomes g.",
			Params: []star.Param{genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "phases", Summary: "Each generator in turn, waiting for every thread to be idle before each one.",
			Doc:    "Phases never overlap. Takes no keyword arguments.",
			Params: []star.Param{{Name: "*gens", Doc: "generators"}}, Returns: "a generator"},
		star.FuncDoc{Name: "then", Summary: "Runs a, waits until every thread is idle, then runs b.",
			Doc:    "The arguments read in the order they run (Jepsen's (then a b) runs b first).",
			Params: []star.Param{genParam("a"), genParam("b")}, Returns: "a generator"},
		star.FuncDoc{Name: "until_ok", Summary: "g's ops until one of them completes ok.", Params: []star.Param{genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "flip_flop", Summary: "Alternates between the ops of a and b, starting with a; ends when the one whose turn it is is exhausted.",
			Params: []star.Param{genParam("a"), genParam("b")}, Returns: "a generator"},
		star.FuncDoc{Name: "concurrency_limit", Summary: "At most n ops of g in flight at once.",
			Params: []star.Param{{Name: "n", Doc: "the most ops in flight (not negative)"}, genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "process_limit", Summary: "g's ops on at most n distinct processes over the whole run.",
			Doc:    "Once n are in use, g sees only the threads still running one of them, and ends when all of those have crashed: no trickle of ever-new processes.",
			Params: []star.Param{{Name: "n", Doc: "the most processes (not negative)"}, genParam("g")}, Returns: "a generator"},
		star.FuncDoc{Name: "concurrent_keys", Summary: "Jepsen's independent/concurrent-generator: n threads per key, keys rotating.",
			Doc: "The client threads are split, in order, into groups of n. Each group works on one key at a time, running fn(key)'s generator " +
				"until it is exhausted, then takes the next key nobody has had. Every op is stamped with its group's key (the op's key field), " +
				"so check.linearizable(model = \"kv\") checks each key's history on its own, as Jepsen's independent/checker does; fn's generator " +
				"gives plain register ops (read, write, cas) and needs no key. When the keys run out each group stops; the generator ends when every group has. " +
				"The concurrency must be a multiple of n, else the run fails saying so. A completion that arrives after its group moved to " +
				"the next key is not shown to the new key's generator.",
			Params: []star.Param{{Name: "n", Doc: "threads per key (positive)"},
				{Name: "fn", Doc: "fn(key) -> the generator of one key", Example: "lambda k: gen.limit(30, gen.repeat({\"f\": \"read\"}))"},
				{Name: "keys", Default: "None", Doc: "a list of keys, handed out in order; None: 0, 1, 2, ... without end"}},
			Returns: "a generator"},
	)
	star.DocumentType(star.TypeDoc{Name: "generator", Summary: "A generator of operations.",
		From: "every gen.* builtin, nemesis.heal()", Doc: "Accepted wherever a generator is: scenario(workload = ...), final =, and every gen.* argument."})
}
