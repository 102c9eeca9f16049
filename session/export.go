package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/plans"
)

// historyFile is the name of the history a run records in each artifact
// directory (interp.Run writes it).
const historyFile = "history.jsonl"

// ReadHistory reads the history arg names, as HistoryFile resolves it, in
// format from (history.Auto detects it); "-" reads in, named "stdin". It
// returns the name read. An unreadable or malformed history is a Rejected
// Error naming file:line.
func ReadHistory(in io.Reader, arg, scenario string, from history.Format) (string, *history.File, error) {
	if arg == "-" {
		if scenario != "" {
			return "", nil, usage("export: --scenario needs a session directory, not stdin")
		}
		file, err := history.Read(in, "stdin", from)
		if err != nil {
			return "", nil, rejected(fmt.Errorf("export: %w", err))
		}
		return "stdin", file, nil
	}
	name, err := HistoryFile(arg, scenario)
	if err != nil {
		return "", nil, err
	}
	file, err := history.ReadFile(name, from)
	if err != nil {
		return "", nil, rejected(fmt.Errorf("export: %w", err))
	}
	return name, file, nil
}

// HistoryFile resolves the history file arg names: a file as it is, an
// artifact directory's history.jsonl, or the one of a session's artifact
// directories that scenario names (or the only one there is). A missing
// or empty input is a Rejected Error; a scenario that cannot apply, or a
// session of several histories and no scenario, a Usage Error.
func HistoryFile(arg, scenario string) (string, error) {
	reject := func(err error) error { return rejected(fmt.Errorf("export: %w", err)) }
	fi, err := os.Stat(arg)
	if err != nil {
		return "", reject(err)
	}
	if !fi.IsDir() {
		if scenario != "" {
			return "", usage("export: --scenario needs a session directory, and %s is a file", arg)
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
		return "", reject(fmt.Errorf("%s has neither a %s (an artifact directory) nor an artifacts/ directory (a session)", arg, historyFile))
	}
	if err != nil {
		return "", reject(err)
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
		return "", reject(fmt.Errorf("%s: no artifacts/%s/%s (have: %s)", arg, scenario, historyFile, listOrNone(ids)))
	case len(ids) == 1:
		return filepath.Join(artifacts, ids[0], historyFile), nil
	case len(ids) == 0:
		return "", reject(fmt.Errorf("%s: no recorded history (artifacts/*/%s)", arg, historyFile))
	}
	return "", usage("export: %s holds %d histories (%s): name one with --scenario", arg, len(ids), strings.Join(ids, ", "))
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
