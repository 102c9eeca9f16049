package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/internal/bytesize"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/session"
)

type checkFlags struct {
	model   string
	cms     []string
	init    string
	format  string
	timeout time.Duration
	memory  string
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
		Long:  strings.ReplaceAll(help("check"), "{{models}}", strings.Join(allModels(), ", ")),
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
	fl.StringVar(&f.memory, "memory", "", "heap the checks may grow the process to, e.g. 2G (default: half the machine's memory); past it the answer is unknown")
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

// allModels lists every --model value, from the checker registry.
func allModels() []string { return check.ModelNames() }

// newChecker builds the checker --model names, after refusing the flags
// that do not apply to it.
func newChecker(f checkFlags, init any) (check.Checker, error) {
	spec, ok := check.ForModel(f.model)
	if !ok {
		return nil, fmt.Errorf("--model %q: no such model; want one of %s", f.model, strings.Join(allModels(), ", "))
	}
	if f.bank != 0 && f.model != "bank" {
		return nil, fmt.Errorf("--bank-total applies to bank, not %s", f.model)
	}
	if f.bank < 0 {
		return nil, fmt.Errorf("--bank-total must not be negative, got %d", f.bank)
	}
	o := check.Options{Model: f.model, Init: init, Bank: check.BankOptions{Total: f.bank}}
	switch spec.Name {
	case "transactional":
		o.HasInit = f.initSet || f.init != "nil"
		if f.model != "rw-register" {
			if o.HasInit {
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
		o.Transactional = check.TransactionalOptions{ConsistencyModels: f.cms, Anomalies: f.anomalies,
			CycleSearchBudget: f.cycleBudget, WritesFollowReads: f.wfrKeys, SequentialKeys: f.seqKeys, LinearizableKeys: f.linKeys,
			TransactionOrder: order}
	case "linearizable":
		if set := f.txnOnly(false); set != "" {
			return nil, fmt.Errorf("%s applies to list-append and rw-register, not %s", set, f.model)
		}
	default: // the oracles: no model search, no initial state
		if f.init != "nil" {
			return nil, fmt.Errorf("--init does not apply to %s", f.model)
		}
		if set := f.txnOnly(false); set != "" {
			return nil, fmt.Errorf("%s applies to list-append and rw-register, not %s", set, f.model)
		}
	}
	return spec.New(o)
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
	var budget uint64
	if f.memory != "" {
		n, err := bytesize.Parse(f.memory)
		if err != nil {
			return usageErr("check: --memory: %w", err)
		}
		budget = uint64(n)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()

	out := cmd.OutOrStdout()
	// Lines come out in argument order, each as soon as it and those before it are done.
	outcomes := session.CheckFiles(ctx, checker, files, format, session.CheckOptions{Timeout: f.timeout, Out: f.out, MemoryBudget: budget}, func(o session.FileOutcome) {
		if !f.json {
			o.WriteText(out)
		}
	})

	code := checkExitCode(outcomes)
	if f.json {
		doc := map[string]any{"valid": session.Overall(code), "exit_code": code, "model": f.model, "files": outcomes}
		if err := printJSON(out, doc); err != nil {
			return err
		}
	} else if len(files) > 1 {
		if err := session.WriteCheckTable(out, outcomes); err != nil {
			return err
		}
	}
	if code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// checkExitCode ranks outcomes: an anomaly found, then a rejected input, then unknown.
func checkExitCode(outs []session.FileOutcome) int {
	results := make([]string, len(outs))
	for i, o := range outs {
		results[i] = o.Valid
	}
	return session.ExitCode(results)
}

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
