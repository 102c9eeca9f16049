package plans

import (
	"fmt"
	"path/filepath"
	"strings"
)

// TargetPath reads a scenario's "Target test file" value as the path author
// mode (run --author) writes the compiled scenario to, relative to the
// repository root. An empty value gives "" and no error: the scenario
// declares no target. A path that is absolute or climbs out of the
// repository is an error, the same one lint reports (rule target-outside)
// and run --author refuses, so lint passes no plan that author mode rejects.
func TargetPath(value string) (string, error) {
	rel := strings.Trim(strings.TrimSpace(value), "`")
	if rel == "" {
		return "", nil
	}
	// filepath.IsLocal refuses absolute paths and any that climb out
	// through ".." (and not a name that merely starts with ".."); "." is the
	// repository itself, not a file in it.
	if !filepath.IsLocal(rel) || filepath.Clean(rel) == "." {
		return "", fmt.Errorf("target %q must be a path inside the repository", rel)
	}
	return rel, nil
}

// targets checks each scenario's Target test file as author mode will.
func (l *linter) targets(s *Scenario) {
	f := s.Field(FieldTargetFile)
	if f == nil {
		return
	}
	if _, err := TargetPath(f.Value); err != nil {
		l.report("target-outside", f.Pos, s.ID, FieldTargetFile, err.Error(),
			"give the test file's path relative to the repository root, such as `tests/faultline/"+s.ID+".star`")
	}
}
