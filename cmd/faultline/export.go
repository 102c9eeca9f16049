package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/plans"
)

// historyFile is the name of the history a run records in each artifact
// directory (interp.Run writes it).
const historyFile = "history.jsonl"

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
		Long: `export writes a recorded history as the history.edn Jepsen would have
written: one op map per line, {:index 0, :time 0, :type :invoke, :process 0,
:f :read, :value nil}, readable by clojure.edn and Jepsen's own tools.

HISTORY is a file (faultline's history.jsonl, or a Jepsen EDN history or log;
the format is detected unless --from says otherwise; - reads stdin), an
artifact directory (its history.jsonl), or a session directory, whose
artifacts/<ID>/history.jsonl --scenario picks (needed when there are several).

What changes on the way, so that Jepsen tools read the ops as Jepsen's own:
the nemesis is :process :nemesis and its invocation is :type :info, like its
completion; a map key, :f or keyword that is not a valid EDN keyword (a space,
a leading digit, two '/'...) is written as a string. Reading the export back
into faultline gives the same ops, except that nemesis invocations read back
as info and such keywords as strings.

Exit codes: 0 exported, 3 the input is missing or malformed (the message
names file:line) or the output cannot be written, 64 usage error.`,
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
	var file *history.File
	name := arg
	if arg == "-" {
		if f.scenario != "" {
			return usageErr("export: --scenario needs a session directory, not stdin")
		}
		name = "stdin"
		file, err = history.Read(cmd.InOrStdin(), name, from)
	} else {
		if name, err = exportInput(arg, f.scenario); err != nil {
			return err
		}
		file, err = history.ReadFile(name, from)
	}
	if err != nil {
		return &exitError{code: exitRejected, err: fmt.Errorf("export: %w", err)}
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
	if err := writeExport(f.out, file.Ops); err != nil {
		return &exitError{code: exitRejected, err: fmt.Errorf("export %s: %w", name, err)}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "exported %d ops from %s to %s\n", len(file.Ops), name, f.out)
	return nil
}

// exportInput resolves the history file arg names: a file as it is, an
// artifact directory's history.jsonl, or the one of a session's artifact
// directories that scenario names (or the only one there is).
func exportInput(arg, scenario string) (string, error) {
	rejected := func(err error) error { return &exitError{code: exitRejected, err: fmt.Errorf("export: %w", err)} }
	fi, err := os.Stat(arg)
	if err != nil {
		return "", rejected(err)
	}
	if !fi.IsDir() {
		if scenario != "" {
			return "", usageErr("export: --scenario needs a session directory, and %s is a file", arg)
		}
		return arg, nil
	}
	if scenario == "" {
		if path := filepath.Join(arg, historyFile); isFile(path) {
			return path, nil
		}
	}
	artifacts := filepath.Join(arg, "artifacts")
	entries, err := os.ReadDir(artifacts)
	if errors.Is(err, fs.ErrNotExist) {
		return "", rejected(fmt.Errorf("%s has neither a %s (an artifact directory) nor an artifacts/ directory (a session)", arg, historyFile))
	}
	if err != nil {
		return "", rejected(err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && isFile(filepath.Join(artifacts, e.Name(), historyFile)) {
			ids = append(ids, e.Name())
		}
	}
	switch {
	case scenario != "":
		// Artifact directories are named by scenario ID with '/' made '_'.
		for _, id := range []string{scenario, plans.ScenarioName(scenario)} {
			if slices.Contains(ids, id) {
				return filepath.Join(artifacts, id, historyFile), nil
			}
		}
		return "", rejected(fmt.Errorf("%s: no artifacts/%s/%s (have: %s)", arg, scenario, historyFile, listOrNone(ids)))
	case len(ids) == 1:
		return filepath.Join(artifacts, ids[0], historyFile), nil
	case len(ids) == 0:
		return "", rejected(fmt.Errorf("%s: no recorded history (artifacts/*/%s)", arg, historyFile))
	}
	return "", usageErr("export: %s holds %d histories (%s): name one with --scenario", arg, len(ids), strings.Join(ids, ", "))
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// writeExport writes the export to a temporary file beside path and renames
// it into place, so a failed export never leaves a truncated history.edn
// that a Clojure tool would read as a shorter history.
func writeExport(path string, ops []history.Op) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create output: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := history.ExportEDN(tmp, ops); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; an export is meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
