package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

type checkFlags struct {
	model   string
	cms     []string
	init    string
	format  string
	timeout time.Duration
	json    bool
	out     string
	bank    int64 // --bank-total
	// Elle's options, for list-append and rw-register.
	anomalies   []string
	cycleBudget time.Duration
	wfrKeys     bool
	seqKeys     bool   // --sequential-keys
	linKeys     bool   // --linearizable-keys
	txnOrder    string // --transaction-order
	initSet     bool   // --init was given, so the initial state is known
}

// txnFlag is a transactional flag as given: whether it was set, and
// whether it fits rw-register alone.
type txnFlag struct {
	name        string
	set, rwOnly bool
}

// txnFlags are the transactional flags, in help order.
func (f checkFlags) txnFlags() []txnFlag {
	return []txnFlag{
		{"--consistency-model", len(f.cms) > 0, false},
		{"--anomalies", len(f.anomalies) > 0, false},
		{"--cycle-search-timeout", f.cycleBudget != 0, false},
		{"--wfr-keys", f.wfrKeys, true},
		{"--sequential-keys", f.seqKeys, true},
		{"--linearizable-keys", f.linKeys, true},
		{"--transaction-order", f.txnOrder != "", true},
	}
}

// txnOnly names the transactional flags given (those that fit rw-register
// alone only, with rwOnly), joined for a message; "" when none was.
func (f checkFlags) txnOnly(rwOnly bool) string {
	var set []string
	for _, t := range f.txnFlags() {
		if t.set && (t.rwOnly || !rwOnly) {
			set = append(set, t.name)
		}
	}
	return strings.Join(set, ", ")
}

func newCheckCmd() *cobra.Command {
	var f checkFlags
	var output func() error // set by registerOutput below, called first in RunE
	cmd := &cobra.Command{
		Use:   "check --model M [flags] HISTORY...",
		Short: "Check recorded histories (Jepsen EDN, Jepsen logs, faultline JSONL)",
		Long: `Check one or more recorded histories against a consistency model. Several
files are checked in parallel; each gets one line, then a summary table.

Models: ` + strings.Join(allModels(), ", ") + `
(list-append and rw-register are transactional, checked Elle-style for the
anomalies --consistency-model forbids; default strict-serializable. Models are
Elle's lattice, PL-* names included. rw-register infers version orders from
the initial state, and from --wfr-keys, --sequential-keys, --linearizable-keys
and --transaction-order when given; with --init the initial state is known, so
a read of a value nobody wrote and not initial is a garbage read, which
without --init may be a value from before the history.)

A history may be Jepsen's history.edn (a vector of op maps or one map per
line), a Jepsen log (jepsen.util lines), or faultline's history.jsonl; the
format is detected unless --format says otherwise. An op that crashed (info)
may have taken effect at any time; a search that runs out of time is unknown,
never valid.

Exit codes: 0 all valid, 1 an anomaly found, 2 unknown (timeout, nothing to
check), 3 input rejected (the message names file:line and what was expected),
64 usage error. An anomaly outranks a rejected file, which outranks unknown.`,
		Example: `  faultline check --model cas-register etcd_000.log
  faultline check --model kv --format edn c10-ok.txt c10-bad.txt
  faultline check --model multi-register --init '{x:0,y:0}' history.edn
  faultline check --model register -o json history.jsonl
  faultline check --model list-append --consistency-model serializable history.edn`,
		Args: minArgs(1, "HISTORY file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := output(); err != nil {
				return err
			}
			return runCheck(cmd, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", "", "model: "+strings.Join(allModels(), ", ")+" (required)")
	fl.StringArrayVar(&f.cms, "consistency-model", nil, "for list-append/rw-register: a model to check (repeatable)")
	fl.StringVar(&f.init, "init", "nil", "initial state: nil, 0, \"s\", {x:0,y:0}")
	fl.StringVar(&f.format, "format", "auto", "history format: auto, edn, jepsen-log, jsonl")
	fl.DurationVar(&f.timeout, "timeout", time.Minute, "bound on the search per history (0 = none)")
	fl.StringVar(&f.out, "out", "", "write explanations and HTML visualizations under DIR/<history name>/")
	fl.StringSliceVar(&f.anomalies, "anomalies", nil, "for list-append/rw-register: anomalies that fail the check besides the models' (G0, G1, G1c, G-single, G2, ...; repeatable or comma-separated); named alone, they are the whole question")
	fl.DurationVar(&f.cycleBudget, "cycle-search-timeout", 0, "for list-append/rw-register: bound on the cycle search per component (default 1s); past it the answer is unknown")
	fl.BoolVar(&f.wfrKeys, "wfr-keys", false, "for rw-register: a txn that read a key then wrote it wrote after the version it read (Elle's wfr-keys?)")
	fl.BoolVar(&f.seqKeys, "sequential-keys", false, "for rw-register: every key is sequentially consistent, so process order orders its versions (Elle's sequential-keys?)")
	fl.BoolVar(&f.linKeys, "linearizable-keys", false, "for rw-register: every key is linearizable, so real-time order orders its versions (Elle's linearizable-keys?)")
	fl.StringVar(&f.txnOrder, "transaction-order", "", "for rw-register: a known commit order, as INDEX:POS,... pairing a txn's completion history index with its position (Elle's transaction-order)")
	fl.Int64Var(&f.bank, "bank-total", 0, "for bank: the conserved total of all balances (0 = the first read's sum)")
	output = registerOutput(cmd, &f.json)
	registerModelCompletion(cmd)
	return cmd
}

// oracleModel is a --model value whose checker needs no model search.
type oracleModel struct {
	name string
	make func(f checkFlags) check.Checker
}

// oracles are the --model values that need no model search, in the order
// help lists them; each builds its checker from the flags.
var oracles = []oracleModel{
	{"set", func(checkFlags) check.Checker { return check.Set() }},
	{"set-full", func(checkFlags) check.Checker { return check.SetFull(check.SetFullOptions{}) }},
	{"counter", func(checkFlags) check.Checker { return check.Counter() }},
	{"bank", func(f checkFlags) check.Checker { return check.Bank(check.BankOptions{Total: f.bank}) }},
	{"unique-ids", func(checkFlags) check.Checker { return check.UniqueIDs() }},
	{"queue", func(checkFlags) check.Checker { return check.Queue() }},
	{"total-queue", func(checkFlags) check.Checker { return check.TotalQueue() }},
}

// allModels lists every --model value from where each kind is registered:
// the linearizability models, the transactional workloads, then the oracles.
func allModels() []string {
	names := slices.Concat(check.Models(), check.TransactionalWorkloads)
	for _, o := range oracles {
		names = append(names, o.name)
	}
	return names
}

// newChecker builds the checker --model names.
func newChecker(f checkFlags, init any) (check.Checker, error) {
	if !slices.Contains(allModels(), f.model) {
		return nil, fmt.Errorf("--model %q: no such model; want one of %s", f.model, strings.Join(allModels(), ", "))
	}
	if f.bank != 0 && f.model != "bank" {
		return nil, fmt.Errorf("--bank-total applies to bank, not %s", f.model)
	}
	if f.bank < 0 {
		return nil, fmt.Errorf("--bank-total must not be negative, got %d", f.bank)
	}
	if i := slices.IndexFunc(oracles, func(o oracleModel) bool { return o.name == f.model }); i >= 0 {
		if f.init != "nil" {
			return nil, fmt.Errorf("--init does not apply to %s", f.model)
		}
		if set := f.txnOnly(false); set != "" {
			return nil, fmt.Errorf("%s applies to list-append and rw-register, not %s", set, f.model)
		}
		return oracles[i].make(f), nil
	}
	if slices.Contains(check.TransactionalWorkloads, f.model) {
		hasInit := f.initSet || f.init != "nil"
		if f.model != "rw-register" {
			if hasInit {
				return nil, fmt.Errorf("--init does not apply to %s (every key starts empty)", f.model)
			}
			if set := f.txnOnly(true); set != "" {
				return nil, fmt.Errorf("%s applies to rw-register, not %s", set, f.model)
			}
		}
		order, err := parseTxnOrder(f.txnOrder)
		if err != nil {
			return nil, err
		}
		if f.cycleBudget < 0 {
			return nil, fmt.Errorf("--cycle-search-timeout must be positive, got %s", f.cycleBudget)
		}
		return check.Transactional(check.TransactionalOptions{Workload: f.model, ConsistencyModels: f.cms, Anomalies: f.anomalies,
			CycleSearchBudget: f.cycleBudget, WritesFollowReads: f.wfrKeys, SequentialKeys: f.seqKeys, LinearizableKeys: f.linKeys,
			TransactionOrder: order, Init: init, HasInit: hasInit})
	}
	if set := f.txnOnly(false); set != "" {
		return nil, fmt.Errorf("%s applies to list-append and rw-register, not %s", set, f.model)
	}
	return check.Linearizable(check.LinearizableOptions{Model: f.model, Init: init})
}

// checkOutcome is one history's result, or why it could not be checked.
type checkOutcome struct {
	File     string       `json:"file"`
	Format   string       `json:"format,omitempty"`
	Ops      int          `json:"ops"`
	Valid    string       `json:"valid"` // valid, invalid, unknown, rejected
	Summary  string       `json:"summary"`
	Result   check.Result `json:"result"`
	Rejected string       `json:"rejected,omitempty"`
	Warning  string       `json:"warning,omitempty"`
}

func runCheck(cmd *cobra.Command, f checkFlags, files []string) error {
	if f.model == "" {
		return usageErr("check: --model is required (one of %s)", strings.Join(allModels(), ", "))
	}
	format, err := history.ParseFormat(f.format)
	if err != nil {
		return usageErr("check: --format: %w", err)
	}
	f.initSet = cmd.Flags().Changed("init")
	init, err := check.ParseInit(f.init)
	if err != nil {
		return usageErr("check: --init: %w", err)
	}
	checker, err := newChecker(f, init)
	if err != nil {
		return usageErr("check: %w", err)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()

	out := cmd.OutOrStdout()
	outcomes := make([]checkOutcome, len(files))
	done := make([]chan struct{}, len(files))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	go func() {
		for i := range files {
			g.Go(func() error {
				outcomes[i] = checkOne(ctx, checker, files[i], format, f)
				close(done[i])
				return nil
			})
		}
	}()
	// Lines come out in argument order, each as soon as it and those before it are done.
	for i := range files {
		<-done[i]
		if !f.json {
			printOutcomeLine(out, outcomes[i])
		}
	}
	_ = g.Wait()

	code := checkExitCode(outcomes)
	if f.json {
		doc := map[string]any{"valid": overall(code), "exit_code": code, "model": f.model, "files": outcomes}
		if err := printJSON(out, doc); err != nil {
			return err
		}
	} else if len(files) > 1 {
		if err := printOutcomeTable(out, outcomes); err != nil {
			return err
		}
	}
	if code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

func checkOne(ctx context.Context, c check.Checker, file string, format history.Format, f checkFlags) (o checkOutcome) {
	o.File = file
	// A checker that panics on one file costs that file's answer, not the
	// others' nor the process.
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("internal error: the checker panicked on this history (a bug in faultline; please report it with the file): %v", p)
			o.Valid, o.Summary, o.Result = internalError, msg, check.Result{Valid: check.Unknown, Summary: msg}
		}
	}()
	h, err := history.ReadFile(file, format)
	if err != nil {
		o.Valid, o.Rejected, o.Summary = "rejected", err.Error(), err.Error()
		return o
	}
	o.Format, o.Ops = string(h.Format), len(h.Ops)
	if h.TruncatedTail {
		o.Warning = "the last line was incomplete (a killed run?) and was ignored"
	}
	env := check.Env{Timeout: f.timeout}
	if f.out != "" {
		env.OutDir = filepath.Join(f.out, strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)))
		if err := os.MkdirAll(env.OutDir, 0o755); err != nil {
			o.Valid, o.Rejected, o.Summary = "rejected", err.Error(), err.Error()
			return o
		}
	}
	o.Result = c.Check(ctx, h.Ops, env)
	o.Valid, o.Summary = string(o.Result.Valid), o.Result.Summary
	if err := o.Result.Input; err != nil {
		// The file is not a history this checker can read: rejected (exit
		// 3) at its line, as a parse error is, not an honest "unknown".
		where := file
		var oe *history.OpError
		if errors.As(err, &oe) {
			if line := h.LineOf(oe.Index); line > 0 {
				where = fmt.Sprintf("%s:%d", file, line)
			}
		}
		o.Valid, o.Rejected = "rejected", where+": "+err.Error()
		o.Summary = o.Rejected
		return o
	}
	if env.OutDir != "" && o.Result.Explanation != "" {
		text := o.Result.Summary + "\n\n" + o.Result.Explanation + "\n"
		if err := os.WriteFile(filepath.Join(env.OutDir, "explanation.txt"), []byte(text), 0o644); err != nil {
			o.Warning = strings.TrimSpace(o.Warning + "; " + err.Error())
		}
	}
	return o
}

func printOutcomeLine(w io.Writer, o checkOutcome) {
	fmt.Fprintf(w, "%s: %s: %s\n", o.File, strings.ToUpper(o.Valid), o.Summary)
	if o.Warning != "" {
		fmt.Fprintf(w, "%s: warning: %s\n", o.File, o.Warning)
	}
	if o.Valid != "valid" {
		printIndented(w, o.Result.Explanation)
	}
	for _, a := range o.Result.Artifacts {
		fmt.Fprintf(w, "  wrote %s\n", a)
	}
}

func printOutcomeTable(w io.Writer, outs []checkOutcome) error {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("history", "format", "ops", "result")
	for _, o := range outs {
		if err := t.Append(filepath.Base(o.File), o.Format, fmt.Sprint(o.Ops), o.Valid); err != nil {
			return err
		}
	}
	counts := map[string]int{}
	for _, o := range outs {
		counts[o.Valid]++
	}
	t.Footer("", "", "", fmt.Sprintf("%d valid, %d invalid, %d unknown, %d rejected",
		counts["valid"], counts["invalid"], counts["unknown"], counts["rejected"]))
	if err := t.Render(); err != nil {
		return fmt.Errorf("render table: %w", err)
	}
	return nil
}

// checkExitCode ranks outcomes: an anomaly found, then a rejected input, then unknown.
func checkExitCode(outs []checkOutcome) int {
	results := make([]string, len(outs))
	for i, o := range outs {
		results[i] = o.Valid
	}
	return worstExit(results)
}

// worstExit maps per-item results (valid, invalid, unknown, and rejected or
// error for input that could not be used) to one exit code: an anomaly
// found outranks unusable input, which outranks unknown.
func worstExit(results []string) int {
	rank := map[int]int{exitOK: 0, exitUnknown: 1, exitRejected: 2, exitInternal: 3, exitFail: 4}
	code := exitOK
	for _, r := range results {
		c := exitUnknown
		switch r {
		case "valid":
			c = exitOK
		case "invalid":
			c = exitFail
		case "rejected", "error":
			c = exitRejected
		case internalError:
			c = exitInternal
		}
		if rank[c] > rank[code] {
			code = c
		}
	}
	return code
}

func overall(code int) string {
	switch code {
	case exitOK:
		return "valid"
	case exitFail:
		return "invalid"
	case exitRejected:
		return "rejected"
	case exitInternal:
		return internalError
	}
	return "unknown"
}

// internalError is the result of an item a faultline bug stopped.
const internalError = "internal-error"

// parseTxnOrder parses --transaction-order: INDEX:POS pairs, comma-separated,
// each a transaction's completion history index and its commit position.
func parseTxnOrder(s string) (map[int64]int, error) {
	if s == "" {
		return nil, nil
	}
	out := map[int64]int{}
	for _, pair := range strings.Split(s, ",") {
		i, p, ok := strings.Cut(strings.TrimSpace(pair), ":")
		idx, err1 := strconv.ParseInt(i, 10, 64)
		pos, err2 := strconv.Atoi(p)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("--transaction-order: %q is not INDEX:POS (a completion's history index and its commit position)", pair)
		}
		if _, dup := out[idx]; dup {
			return nil, fmt.Errorf("--transaction-order: index %d given twice", idx)
		}
		out[idx] = pos
	}
	return out, nil
}
