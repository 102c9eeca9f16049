// Package nemesis injects faults on the nodes of a test, proves from the
// victims that each fault landed, and guarantees they are healed.
//
// # Worker
//
// A Worker (New, over a control.Pool) is the gen.Worker of the nemesis
// thread. It executes the ops of the registered faults (see Registry):
//
//	start-partition  value: a grudge spec name (ComputeGrudge) or {node: [peers it drops]}
//	stop-partition
//	start-loss       value: {"nodes": node spec, "probability": p}
//	stop-loss
//	kill / start     value: {"nodes", "pattern", "restart": argv, "pidfile", "logfile"}
//	pause / resume   value: {"nodes", "pattern"} (SIGSTOP / SIGCONT)
//	start-bandwidth  value: {"nodes", "rate": "1mbit"} (tbf on the nodes' interfaces)
//	start-delay      value: {"nodes", "delay": "50ms", "jitter"} (netem, else faultline's NFQUEUE agent)
//	stop-bandwidth / stop-delay
//	fill-disk        value: {"nodes", "path", "size": "100M"} (fallocate)
//	free-disk
//	truncate-file    value: {"nodes", "path", "size": bytes kept} (no heal: the damage stays)
//	bitflip-file     value: {"nodes", "path", "offset", "bit"} (one bit flipped; no heal)
//	start-clock      value: {"nodes", "mode": bump|strobe|skew|reset, "delta", "period", "rate"} (clock.go; own kernels only)
//	stop-clock       stops strobes, restores the tick, sets the victims' clocks to the controller's
//	clock-skew, bump-clock, strobe-clock   old names, never injected: missing capability
//	heal             removes every fault on every node (HealAll)
//
// Node specs (ResolveNodes) are one, minority, majority, primaries, all, a
// node name or a list. The completion's Value holds the resolved targets or
// grudge; Extra["evidence"] holds, per node, what was read back from it;
// Extra["landed"] says whether that evidence shows the fault in effect. A
// fault is never judged by the injector's exit code: a partition is landed
// when each DROP rule and the INPUT jump are read back right after inject
// and are still there, with their packet counters, when it is healed (a
// rule deleted behind faultline's back makes the stop op report
// landed=false and the missing peers); a kill when every matched pid is gone
// from /proc, a pause when each is in state T, a bandwidth limit when its
// qdisc is read back (and its byte counters when removed), a fill when the
// file's size is. Stop ops also read the fault back gone and report
// Extra["healed"].
//
// # Rules on the nodes
//
// iptables rules live only in faultline's chains (Chain, PartitionChain,
// LossChain); Chain is jumped to from INPUT and first returns loopback and
// the controller's address (taken from the node's SSH_CLIENT) to INPUT, so
// the controller is never cut off by a fault. No faultline rule accepts a
// packet: faults add drops, and the node's own rules, its DROPs included,
// still judge every packet a fault lets through. Grudges are enforced at
// the receiver: node a drops packets from each peer in grudge[a]. One-way
// partitions need no OUTPUT rules. Loss uses the statistic match. Either iptables backend
// works (the same commands drive nft and legacy); HealAll cleans up with
// every backend present, in case a crashed run used another one, but asks
// legacy iptables only about tables the node already has (asking loads
// them).
//
// Pauses and fill files leave no name to find, so they are recorded in
// StateFile on the node; qdiscs carry QdiscHandle. HealAll removes the
// chains and their jump, the marked qdiscs, resumes the recorded pids and
// deletes recorded files; it is idempotent and needs no memory of the run,
// which is what `faultline heal` relies on after a controller crash.
//
// A bandwidth or netem delay fault shapes only the cluster interface (the
// one holding the address the controller's ssh session reached), and only
// if its root qdisc is the kernel's default (handle 0:, which deleting
// faultline's qdisc brings back) or faultline's own: a root qdisc the node
// configured is never replaced; the fault is refused on that node, naming
// the interface and the qdisc.
//
// # Missing capabilities
//
// Faults a node cannot take are reported, never faked: start-delay reads
// the kernel's netem and NFQUEUE support first (Capabilities). Without
// netem it uploads the faultline binary to the targets and runs it as a
// delay agent (agent/nfdelay) fed by an NFQUEUE rule in DelayChain (in
// the mangle table, so a delayed packet still meets the node's filter
// rules), with --queue-bypass so traffic flows if the agent dies; it is landed when the
// rule and a live agent that bound the queue are read back, and its stats
// file (packets delayed, mean delay applied) is the evidence. The agent's
// pidfile is recorded in StateFile, so HealAll stops it. With neither, the
// op fails with "missing capability"; clock faults fail too where nodes
// share one kernel (same boot id) or run on the controller's, and are
// injected (start-clock) on nodes with kernels of their own, such as the VM
// nodes of faultline cluster up --vm.
//
// # Registry
//
// Every fault is registered once (Faults, Lookup, ByOp), from the file that
// implements it, with its inject and end ops and their steps, how its
// landing is read back, the host capabilities it needs and the phrases
// plans name it by. The Worker, the final heal, FaultWindows, Missed,
// interp's reduction units, plans and probe read the registry, so adding a
// fault is one new file.
//
// A script defines faults at run time (ScriptFault, the Starlark
// nemesis.fault): Scripted.Define checks each against the built-ins and the
// script's own, ScriptCycle schedules one, the Package carries it and
// Options.Scripts hands it to the Worker, so it is scoped to its run. Its
// ops are named start:NAME and stop:NAME (inject:NAME for one with no end),
// which ByOp answers from the name alone: histories are windowed, judged
// and replayed like any other. HealScripts runs their heal.
//
// # Building packages
//
// A Package is a nemesis: fault cycles (sleep interval, inject, hold, heal)
// plus a final heal, built in Go with Cycle, Compose and Custom. Scenarios
// build them with the Starlark "nemesis" module (star/nemesis) and declare
// landing evidence (Decl) with the "evidence" module (star/evidence);
// Evaluate judges the declarations against the recorded history after the
// run. This package imports no Starlark.
package nemesis
