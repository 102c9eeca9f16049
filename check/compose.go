package check

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/faultline/faultline/history"
)

// Compose returns a checker that runs every child concurrently over the same
// history. Its verdict is the Merge of theirs, so one invalid child makes the
// whole invalid and one undecided child keeps it from passing.
func Compose(cs ...Checker) Checker { return &composite{cs: slices.Clone(cs)} }

type composite struct{ cs []Checker }

// Name implements Checker.
func (c *composite) Name() string { return "compose" }

// String describes the checker as it would be written in a scenario.
func (c *composite) String() string {
	parts := make([]string, len(c.cs))
	for i, ch := range c.cs {
		if s, ok := ch.(fmt.Stringer); ok {
			parts[i] = s.String()
		} else if ch != nil {
			parts[i] = ch.Name()
		}
	}
	return "check.compose([" + strings.Join(parts, ", ") + "])"
}

// Check implements Checker.
func (c *composite) Check(ctx context.Context, h []history.Op, env Env) Result {
	if len(c.cs) == 0 {
		return nothingToCheck(c.Name(), "compose has no checkers", nil)
	}
	dirs := childDirs(c.cs)
	results := make([]Result, len(c.cs))
	var wg sync.WaitGroup
	for i, ch := range c.cs {
		wg.Go(func() { results[i] = runChild(ctx, ch, h, env, dirs[i]) })
	}
	wg.Wait()

	res := Result{Checker: c.Name(), Valid: Valid, Children: results}
	var verdicts []string
	var b strings.Builder
	for _, r := range results {
		res.Valid = Merge(res.Valid, r.Valid)
		res.Consumed.Ops = max(res.Consumed.Ops, r.Consumed.Ops)
		res.Consumed.Keys = max(res.Consumed.Keys, r.Consumed.Keys)
		res.Artifacts = append(res.Artifacts, r.Artifacts...)
		verdicts = append(verdicts, fmt.Sprintf("%s %s", r.Checker, r.Valid))
		if r.Valid != Valid {
			fmt.Fprintf(&b, "%s (%s): %s\n", r.Checker, r.Valid, r.Summary)
			// The child's explanation is what a person needs; indented
			// under its summary so several children stay apart.
			for _, line := range strings.Split(strings.TrimRight(r.Explanation, "\n"), "\n") {
				if line == "" {
					b.WriteString("\n")
					continue
				}
				b.WriteString("    " + line + "\n")
			}
		}
	}
	if res.Valid == Valid && res.Consumed.Ops == 0 {
		res.Valid = Unknown
		b.WriteString("no child checker consumed any client op\n")
	}
	res.Summary = fmt.Sprintf("%s: %s", res.Valid, strings.Join(verdicts, ", "))
	res.Explanation = b.String()
	return res
}

// childDirs gives each child the directory its artifacts go to, relative to
// the parent's OutDir: the parent itself, or "name-N" for the Nth child of a
// name already used, so two linearizable checks do not overwrite one page.
func childDirs(cs []Checker) []string {
	dirs := make([]string, len(cs))
	seen := map[string]int{}
	for i, ch := range cs {
		if ch == nil {
			continue
		}
		n := ch.Name()
		seen[n]++
		if seen[n] > 1 {
			dirs[i] = fmt.Sprintf("%s-%d", n, seen[n])
		}
	}
	return dirs
}

// runChild runs one child, keeping a panic or a nil checker inside its result.
func runChild(ctx context.Context, ch Checker, h []history.Op, env Env, dir string) (res Result) {
	if ch == nil {
		return Result{Checker: "nil", Valid: Unknown, Summary: "compose was given a nil checker"}
	}
	defer func() {
		if r := recover(); r != nil {
			res = Result{Checker: ch.Name(), Valid: Unknown, Summary: fmt.Sprintf("checker panicked: %v", r)}
		}
	}()
	if env.OutDir != "" && dir != "" {
		env.OutDir = filepath.Join(env.OutDir, dir)
	}
	res = ch.Check(ctx, h, env)
	for i, a := range res.Artifacts {
		res.Artifacts[i] = path.Join(dir, a)
	}
	return res
}
