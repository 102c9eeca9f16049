package main

import (
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/bytesize"
	"github.com/faultline/faultline/session"
)

type checkFlags struct {
	session.CheckerFlags
	format  string
	timeout time.Duration
	memory  string
	json    bool
	out     string
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
	fl.StringVar(&f.Model, "model", "", "model: "+strings.Join(allModels(), ", ")+" (required)")
	fl.StringArrayVar(&f.ConsistencyModels, "consistency-model", nil, "for list-append/rw-register: a model to check (repeatable)")
	fl.StringVar(&f.Init, "init", "nil", "initial state: nil, 0, \"s\", {x:0,y:0}")
	fl.StringVar(&f.format, "format", "auto", "history format: auto, edn, jepsen-log, jsonl")
	fl.DurationVar(&f.timeout, "timeout", time.Minute, "bound on the search per history (0 = none)")
	fl.StringVar(&f.memory, "memory", "", "heap the checks may grow the process to, e.g. 2G (default: half the machine's memory); past it the answer is unknown")
	fl.StringVar(&f.out, "out", "", "write explanations and HTML visualizations under DIR/<history name>/")
	fl.StringSliceVar(&f.Anomalies, "anomalies", nil, "for list-append/rw-register: anomalies that fail the check besides the models' (G0, G1, G1c, G-single, G2, ...; repeatable or comma-separated); named alone, they are the whole question")
	fl.DurationVar(&f.CycleBudget, "cycle-search-timeout", 0, "for list-append/rw-register: bound on the cycle search per component (default 1s); past it the answer is unknown")
	fl.BoolVar(&f.WFRKeys, "wfr-keys", false, "for rw-register: a txn that read a key then wrote it wrote after the version it read (Elle's wfr-keys?)")
	fl.BoolVar(&f.SequentialKeys, "sequential-keys", false, "for rw-register: every key is sequentially consistent, so process order orders its versions (Elle's sequential-keys?)")
	fl.BoolVar(&f.LinearizableKeys, "linearizable-keys", false, "for rw-register: every key is linearizable, so real-time order orders its versions (Elle's linearizable-keys?)")
	fl.StringVar(&f.TransactionOrder, "transaction-order", "", "for rw-register: a known commit order, as INDEX:POS,... pairing a txn's completion history index with its position (Elle's transaction-order)")
	fl.Int64Var(&f.BankTotal, "bank-total", 0, "for bank: the conserved total of all balances (0 = the first read's sum)")
	output = registerOutput(cmd, &f.json)
	registerModelCompletion(cmd)
	return cmd
}

// allModels lists every --model value, from the checker registry.
func allModels() []string { return check.ModelNames() }
func runCheck(cmd *cobra.Command, f checkFlags, files []string) error {
	if f.Model == "" {
		return usageErr("check: --model is required (one of %s)", strings.Join(allModels(), ", "))
	}
	format, err := history.ParseFormat(f.format)
	if err != nil {
		return usageErr("check: --format: %w", err)
	}
	f.InitSet = cmd.Flags().Changed("init")
	init, err := check.ParseInit(f.Init)
	if err != nil {
		return usageErr("check: --init: %w", err)
	}
	checker, err := session.NewChecker(f.CheckerFlags, init)
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
		doc := map[string]any{"valid": session.Overall(code), "exit_code": code, "model": f.Model, "files": outcomes}
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
