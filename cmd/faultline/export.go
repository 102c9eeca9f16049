package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/session"
)

type exportFlags struct {
	out      string
	format   string
	from     string
	scenario string
}

func newExportCmd() *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export HISTORY|ARTIFACT_DIR|SESSION_DIR [--out FILE] [-o edn] [--scenario ID]",
		Short: "Write a recorded history as Jepsen EDN that Clojure's reader accepts",
		Long:  help("export"),
		Example: `  faultline export test-sessions/register/20261130T081727Z/artifacts/S1/history.jsonl --out history.edn
  faultline export test-sessions/register/20261130T081727Z --scenario S1 > history.edn
  faultline export artifacts/S1 --out history.edn
  # then, in Clojure: (map clojure.edn/read-string (line-seq (clojure.java.io/reader "history.edn")))`,
		Args: exactlyOne("export", "HISTORY file or directory"),
		RunE: func(cmd *cobra.Command, args []string) error { return runExport(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	// -o/--output is the output format and --out where it goes, as on
	// every other command (kubectl's and etcdctl's -o convention).
	fl.StringVar(&f.out, "out", "", "write to FILE instead of stdout (replaced only once the export succeeded)")
	fl.StringVarP(&f.format, "output", "o", "edn", "output format: edn")
	fl.StringVar(&f.format, "format", "edn", "output format (alias of --output)")
	_ = fl.MarkHidden("format")
	fl.StringVar(&f.from, "from", "auto", "input format: auto, jsonl, edn, jepsen-log")
	fl.StringVar(&f.scenario, "scenario", "", "in a session directory, the artifact directory (scenario ID) to export")
	return cmd
}

func runExport(cmd *cobra.Command, f exportFlags, arg string) error {
	if f.format != string(history.EDN) {
		return usageErr("export: --format %q: the only export format is edn", f.format)
	}
	from, err := history.ParseFormat(f.from)
	if err != nil {
		return usageErr("export: --from: %w", err)
	}
	name, file, err := session.ReadHistory(cmd.InOrStdin(), arg, f.scenario, from)
	if err != nil {
		return exitOf(err)
	}
	if file.TruncatedTail {
		fmt.Fprintf(cmd.ErrOrStderr(), "faultline: export: warning: %s: the last line was incomplete (a killed run?) and is left out\n", name)
	}
	if f.out == "" || f.out == "-" {
		if err := history.ExportEDN(cmd.OutOrStdout(), file.Ops); err != nil {
			return &exitError{code: exitRejected, err: fmt.Errorf("export %s: %w", name, err)}
		}
		return nil
	}
	if err := history.ExportEDNFile(f.out, file.Ops); err != nil {
		return &exitError{code: exitRejected, err: fmt.Errorf("export %s: %w", name, err)}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "exported %d ops from %s to %s\n", len(file.Ops), name, f.out)
	return nil
}
