// Package verdict turns measured run evidence into the plan spec's verdicts
// (research/plan-execution-spec.md §2) and runs the pre-PASS audits (§3). It is
// pure: no I/O, no clocks, no imports beyond the standard library, so every
// path is a table test and a verdict can be recomputed from stored evidence.
//
// The pieces, in the order a run uses them:
//
//   - Evidence is what one scenario or arm measured; Decide walks the §2.2
//     decision tree over it and applies the §2.3 gates (budget tier, weak-oracle
//     audit, red flags). TierMet and Audit are the gates on their own.
//   - AggregateArms folds the arms of a §7.M.S scenario with §2.4's downgrade rule.
//   - Session picks the session headline by §2.5: strongest evidence, not counts.
//
// Where the spec is ambiguous we chose, and say so where the choice is made.
// The choices, in one place:
//
//   - A scheduled fault counts as landed only when the injector reported
//     success, a victim-side signal was read back, and, when the scenario's
//     landing evidence names one, a client-side signal was seen (§3.1 #3). Every
//     scheduled fault must land; one unproven fault makes the scenario
//     INCONCLUSIVE-fault-not-proven, since the schedule it claims did not happen.
//     A fault that never fired (its injection failed, or it was due after
//     the workload ended) is a scheduled fault whose injector did not
//     succeed, so it counts against landing like one that fired unseen.
//     Declared landing evidence (evidence.*) that was not seen leaves every
//     fault not proven (Fault.Declared).
//   - An interrupted run (cancelled before its budget ended) is never a
//     PASS. A violation is still a FAIL (the recorded history is real); a
//     scheduled fault not proven is INCONCLUSIVE-fault-not-proven; otherwise
//     the checker judged a prefix of the planned run, which §2.1 calls a
//     subset: PARTIAL-model when it passed, INCONCLUSIVE-oracle-too-weak when
//     it did not decide. Its reasons start with "interrupted:".
//   - A checker that ran but answered "unknown" (search budget exhausted, nothing
//     to check) cannot separate pass from fail: on a serious scenario that is
//     INCONCLUSIVE-oracle-too-weak, beside the missing history fields of §9.
//   - §2.1 defines PARTIAL-surface as "surface signals clean but the checker did
//     not run"; §2.2 reaches it whenever the checker did not run. When the
//     surface signals are not clean (or were not measured) nothing separates
//     pass from fail, so that case is INCONCLUSIVE-oracle-too-weak instead.
//   - A violation with no re-run is FAIL-nondeterministic: reproduction was not
//     shown. The reasons say it was not re-run.
//   - A §3.1 red flag is open when it failed or could not be judged; any open
//     red flag turns a PASS into PARTIAL-surface (§2.3, executor choice). A §3.2
//     weak-oracle item that failed or could not be judged stops PASS-hardening on
//     a serious scenario; it downgrades to PARTIAL-surface when an item found
//     that the oracle rests on surface signals (logs, health checks, error
//     metrics, a single surface) and to PARTIAL-model otherwise, including
//     when the oracle's make-up was not recorded (the checker did run).
//   - A hardening PASS is a sampled claim (seeded schedules and interleavings),
//     so red flag #10 and weak-oracle #11 want MinSeeds distinct seeds at the
//     hardening tier (§1.6's "statistical claims ≥3 seeds agreeing"); smoke is a
//     single-seed tier by definition and both items are n/a there.
//   - Audit items with no number in the spec use these: a run whose plan states
//     no rate passes red flag #1 on any load; "back to nominal" (#8) is
//     judged on the quiescent second half of the load after the last heal
//     against the load before the first fault, by what the system did, not
//     by how fast the controller drove it: every node's clients got ok
//     answers, the share of ops answered (ok, or refused for a reason of the
//     data) is at least DefaultAnsweredFloor of the pre-fault share, the median ok latency is at most
//     DefaultLatencyFactor times the pre-fault median plus
//     DefaultLatencyGrace, and throughput is only a coarse floor
//     (DefaultRecoveryFloor of pre-fault ok ops/s) because closed-loop
//     clients on a busy controller slow down with a healthy system; a
//     history-checked hardening run whose tier sets no op count needs
//     MinHistoryOps (§1.6 default) for weak-oracle #6; landed faults stand in
//     for failovers in #4.
//   - Tiers are cumulative: a tier is met only when every weaker declared tier is
//     met too, so a plan whose hardening budget is weaker than its smoke budget
//     on some dimension cannot earn hardening by missing smoke.
//   - The session ran something when any scenario or arm got past the pre-run
//     capability probe; a session whose every scenario is NOT-RUN or
//     INCONCLUSIVE-env is BLOCKED.
package verdict
