package nemesis

import "github.com/faultline/faultline/star"

// The reference of the "nemesis" module and of faults written in Starlark
// (docs/starlark.md); parameter names, order and defaults follow each
// builder's UnpackArgs call in module.go and fault.go.

// nodesP is the victims argument every node fault takes.
var nodesP = star.Param{Name: "nodes", Default: `"one"`,
	Doc: `the victims: "one", "minority", "minority-third", "majority", "primaries", "all", or a list of node names`}

func timingP(hold bool) []star.Param {
	ps := []star.Param{
		{Name: "interval", Default: `"10s"`, Doc: "the wait after each heal"},
		{Name: "hold", Default: `"10s"`, Doc: "how long each fault stays"},
		{Name: "start", Default: "(one interval in)", Example: `"5s"`, Doc: "when the first fault begins"},
		{Name: "repeat", Default: "True", Doc: "False: the fault happens once, at start"},
	}
	if !hold {
		return []star.Param{ps[2], ps[0], ps[3]}
	}
	return ps
}

func params(lead []star.Param, tail ...star.Param) []star.Param {
	return append(append([]star.Param(nil), lead...), tail...)
}

func init() {
	star.Describe("nemesis", "Faults: each builder returns a nemesis package, a schedule of fault cycles (wait, inject, hold, heal) and a final heal.",
		"Give one as scenario(nemesis = ...), or a dict of them keyed by tier. Every cycle takes start (the first fault), interval "+
			"(the wait after each heal), hold (how long a fault stays) and repeat (False: once, at start). Each fault is read back on "+
			"the victims after it is injected (landing), and healed at the end of the run and by faultline heal.\n\n"+
			"The schedule runs on the load's time: no fault is injected after the budget's duration, and a fault injected before it is "+
			"held for its whole hold and healed even past it. After the nemesis's last step the load always runs on for the recovery "+
			"tail, a tenth of the duration (at least 5s, at most 1m; longer on nodes that run slower than the controller), on the "+
			"healed system, so the run can judge recovery (RF8: the second half of that stretch against the load before the first "+
			"fault). A schedule that already ends that long before the load does costs nothing; with repeat = True it usually does "+
			"not, and the run goes on past its duration by what is missing. The run marks the tail as the phase \"recovery\" in "+
			"schedule.jsonl and says in the session log how long it was.")
	pkg := "a nemesis package"
	star.Document("nemesis",
		star.FuncDoc{Name: "partition", Summary: "Network partitions, on every node's firewall.",
			Params: params([]star.Param{{Name: "spec", Default: `"majority"`,
				Doc: `a grudge: "one", "majority", "minority", "minority-third", "halves", "random-halves", "majorities-ring", "bridge", "one-way", "primaries", or a {node: [peers it cannot reach]} dict`}},
				timingP(true)...),
			Returns: pkg},
		star.FuncDoc{Name: "loss", Summary: "Packet loss on the victims' interfaces.",
			Params:  params([]star.Param{nodesP, {Name: "probability", Default: "(required)", Example: "0.3", Doc: "the probability each packet is dropped, a float in (0, 1]; leaving it out fails"}}, timingP(true)...),
			Returns: pkg},
		star.FuncDoc{Name: "kill", Summary: "kill -9 of the process matching pattern on the victims, restarted after hold.",
			Params: params(params([]star.Param{{Name: "pattern", Doc: "the process's command-line pattern (as pkill -f); only faultline's own processes are signalled: those node.start_daemon started and their children, or with pidfile the process it names and its children; the node's own that match are left alone"}, nodesP}, timingP(true)...),
				star.Param{Name: "command", Default: "None", Example: `["/usr/bin/true"]`, Doc: "the argv that restarts the process (e.g. a db recipe's start); required unless restart is a list"},
				star.Param{Name: "restart", Default: "None", Example: `"10s"`, Doc: "how long the process stays dead (replaces hold), or the restart argv as a list"},
				star.Param{Name: "pidfile", Default: `""`, Doc: "the pidfile the restarted process writes; given, kill acts only on the process it names and its children"},
				star.Param{Name: "logfile", Default: `""`, Doc: "where the restarted process logs"},
				star.Param{Name: "ready", Default: "None", Example: `["sh", "-c", "curl -sf http://127.0.0.1:2379/health"]`, Doc: "an argv that succeeds once the restarted process serves again (a db recipe's ready); the restart runs it until it does, up to 30 s (stretched on slow nodes), and records how long it took"}),
			Returns: pkg},
		star.FuncDoc{Name: "pause", Summary: "SIGSTOP of the process matching pattern on the victims, SIGCONT after hold.",
			Params:  params([]star.Param{{Name: "pattern", Doc: "the process's command-line pattern (as pkill -f); only processes node.start_daemon started and their children are stopped, and only those pause stopped (by pid and start time) are continued; the node's own that match are left alone"}, nodesP}, timingP(true)...),
			Returns: pkg},
		star.FuncDoc{Name: "bandwidth", Summary: "A bandwidth limit on the victims' interfaces.",
			Params: params([]star.Param{nodesP, {Name: "rate", Default: `"1mbit"`, Doc: "the rate, as tc writes it"}}, timingP(true)...), Returns: pkg},
		star.FuncDoc{Name: "clock", Summary: "Moves the victims' wall clocks; only on nodes with their own kernels (faultline cluster up --vm), refused where nodes share one.",
			Params: params([]star.Param{nodesP,
				{Name: "mode", Default: `"bump"`, Doc: `"bump" (jump by delta), "strobe" (jump by delta and back every period), "skew" (run at rate times true time) or "reset" (to the controller's time)`},
				{Name: "delta", Default: `"30s"`, Doc: "the jump of bump and strobe; negative goes back"},
				{Name: "period", Default: `"1s"`, Doc: "strobe's time at each level"},
				{Name: "rate", Default: "1.05", Doc: "skew's clock speed, 0.9 to 1.1 (the kernel's tick)"}}, timingP(true)...),
			Returns: pkg},
		star.FuncDoc{Name: "netem", Summary: "netem's full set on the victims' cluster interface; only where the nodes' kernel has netem (faultline cluster up --vm), refused elsewhere.",
			Params: params([]star.Param{nodesP,
				{Name: "delay", Default: `""`, Example: `"20ms"`, Doc: "added latency"},
				{Name: "jitter", Default: `""`, Doc: "its variation (needs delay)"},
				{Name: "loss", Default: "0.0", Doc: "probability a packet is dropped"},
				{Name: "reorder", Default: "0.0", Doc: "probability a packet skips the delay, overtaking others (needs delay)"},
				{Name: "duplicate", Default: "0.0", Doc: "probability a packet is sent twice"},
				{Name: "corrupt", Default: "0.0", Doc: "probability a packet gets a flipped bit"},
				{Name: "rate", Default: `""`, Example: `"1mbit"`, Doc: "a bandwidth limit"}}, timingP(true)...),
			Returns: pkg},
		star.FuncDoc{Name: "delay", Summary: "Delay (netem) on the victims' interfaces; fails where the kernel lacks netem.",
			Params:  params([]star.Param{nodesP, {Name: "delay", Default: `"50ms"`, Doc: "the added latency"}, {Name: "jitter", Default: `""`, Doc: "its variation"}}, timingP(true)...),
			Returns: pkg},
		star.FuncDoc{Name: "fill_disk", Summary: "Fills the filesystem holding path with a file of size.",
			Params:  params([]star.Param{{Name: "path", Doc: "where the filler file goes: a path that does not exist (one that does is the node's, and is refused)"}, {Name: "size", Doc: `its size ("100M")`}, nodesP}, timingP(true)...),
			Returns: pkg},
		star.FuncDoc{Name: "truncate_file", Summary: "Truncates the file at path to size; not healed during the run (the damage is the system's to face); the cut bytes are kept and put back after the db's teardown if the file is still as the fault left it.",
			Params:  params(params([]star.Param{{Name: "path", Doc: "the file"}, nodesP}, timingP(false)...), star.Param{Name: "size", Default: "0", Doc: "the length it is cut to"}),
			Returns: pkg},
		star.FuncDoc{Name: "bitflip_file", Summary: "Flips one bit of the file at path; not healed during the run (the damage is the system's to face); the byte is kept and put back after the db's teardown if the file is still as the fault left it.",
			Params: params(params([]star.Param{{Name: "path", Doc: "the file"}, nodesP}, timingP(false)...),
				star.Param{Name: "offset", Default: "0", Doc: "the byte offset"}, star.Param{Name: "bit", Default: "0", Doc: "the bit (0..7)"}),
			Returns: pkg},
		star.FuncDoc{Name: "compose", Summary: "Every package's faults at their own times (they may overlap), with one final heal.",
			Doc: "Faults that act on the same thing never overlap, so composed faults cannot undo or refuse one another: a kill or " +
				"pause due while another kill or pause holds the nodes' process waits for its restart or resume; a partition due while " +
				"one is in effect waits for its heal (a node never carries two grudges); bandwidth, delay and netem share one qdisc and " +
				"take turns; a fault never overlaps itself. The waiting fault is injected at the other's heal, held for its whole hold, " +
				"and its later repeats keep their interval from its own heal; one pushed past the end of the load never fires, and the " +
				"run lists it as scheduled but not injected. Faults on different things (a partition and a kill, loss and a pause) " +
				"overlap as scheduled. This holds for packages built from fault cycles (every builder here, and nemesis.fault); a " +
				"custom generator's ops run as given.",
			Params: []star.Param{{Name: "nemeses", Doc: "a list of nemesis packages or generators"}}, Returns: pkg},
		star.FuncDoc{Name: "heal", Summary: "A generator of one heal op: ends every fault in effect.", Returns: "a generator"},
		star.FuncDoc{Name: "fault", Summary: "A fault written in Starlark, registered beside the built-in ones.",
			Doc: "Each function gets the list of victim node values (heal: every node). verify returns the landing evidence read from the " +
				"victims as a dict (or struct) keyed by node name, one non-empty entry per victim: the fault landed only if every victim " +
				"shows it, and an entry for a node that is not a victim does not count. Stop is read back by verify before (held?) and " +
				"after (healed?): a stop that fails, or after which verify still shows a victim, blocks the PASS. With neither stop nor " +
				"heal the fault is one-shot (its damage stays): it is judged by its landing alone. faultline heal runs heal. " +
				"Calling the returned value schedules the fault.",
			Params: []star.Param{{Name: "name", Doc: "the fault's name, unique in the suite"},
				{Name: "start", Doc: "start(nodes): injects it"},
				{Name: "stop", Default: "None", Doc: "stop(nodes): ends it on the victims"},
				{Name: "verify", Default: "None", Doc: "verify(nodes) -> {node.name: evidence} for each victim the fault is in effect on"},
				{Name: "heal", Default: "None", Doc: "heal(nodes): ends it everywhere, whatever state the run left"}},
			Returns: "a nemesis.fault"},
	)
	star.DocumentType(star.TypeDoc{Name: "nemesis", Summary: "A nemesis package: fault cycles and their final heal, for scenario(nemesis = ...).",
		From: "every nemesis.* builder, a nemesis.fault's call"})
	star.DocumentType(star.TypeDoc{Name: "nemesis.fault", Receiver: "fault", Summary: "A fault written in Starlark; call it to schedule it.",
		From: "nemesis.fault()", Doc: `marker = nemesis.fault("marker", start = put, verify = look, heal = remove)` + "\n\n" +
			`scenario(..., nemesis = marker(nodes = "one", interval = "5s", hold = "5s"))`,
		Call: &star.FuncDoc{Summary: "Schedules the fault like a built-in one.", Params: params([]star.Param{nodesP}, timingP(true)...), Returns: pkg}})
}
