// Package probe runs the two steps that come before any scenario (plan-execution
// spec §8.1, steps 2 and 3): it catalogues the system's own test tooling so the
// run reuses it instead of reinventing it, and it builds the environment
// capability matrix that turns a missing capability into INCONCLUSIVE-env for
// exactly the scenarios that need it, after the operator has been told.
package probe

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Role is what a discovered tool is probably for. It is a guess from the path
// and the file's first bytes; the session log shows it so a human can correct it.
type Role string

// Roles, from the most to the least specific.
const (
	RoleFault     Role = "fault-injection" // chaos, nemesis, partition, netem, toxiproxy; tests/chaos
	RoleCluster   Role = "cluster"         // bring-up / teardown of nodes or a compose stack
	RoleWorkload  Role = "workload"        // drivers, load generators, benchmarks
	RoleTests     Role = "test-suite"      // tests/integration, tests/stability, test targets
	RoleDocs      Role = "docs"            // runbooks and test plans
	RoleCIFaults  Role = "ci-fault-wiring" // CI definitions that already inject faults
	RoleBuildTask Role = "build-task"      // cargo xtask
	RoleTool      Role = "tool"            // anything else under tools/, scripts/, bin/
)

// Tool is one piece of existing tooling. Target names the Makefile or justfile
// target when Path is such a file, and is "cargo xtask" for the xtask crate;
// it is empty otherwise.
type Tool struct {
	Path   string `json:"path"` // slash-separated, relative to the discovery root
	Role   Role   `json:"role"`
	Target string `json:"target,omitempty"`
}

// headBytes bounds how much of a file role guessing reads; the first few KiB
// of a script say what it does, and discovery must stay quick on big repos.
const headBytes = 16 << 10

var (
	faultWords    = []string{"chaos", "fault", "nemesis", "partition", "netem", "toxiproxy", "jepsen", "iptables", "faketime", "kill -9", "blackhole"}
	clusterWords  = []string{"cluster", "compose", "bring-up", "bringup", "deploy", "provision", "bootstrap", "up", "down", "start", "stop"}
	workloadWords = []string{"workload", "bench", "load", "driver", "stress", "soak", "traffic", "gen"}
	testWords     = []string{"test", "e2e", "integration", "stability", "verify", "check"}
	// ciWords must be specific: "tc" alone matches far too much.
	ciWords = []string{"iptables", "tc qdisc", "netem", "chaos", "toxiproxy", "jepsen", "nemesis"}

	makeTargetRe = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:([^=]|$)`)
	justRecipeRe = regexp.MustCompile(`^@?([A-Za-z0-9][A-Za-z0-9_-]*)(\s+[^:]*)?:([^=]|$)`)
	wordSplitRe  = regexp.MustCompile(`[^a-z0-9]+`)
)

// Discover catalogues the test tooling under root (spec §8.1 step 2). It never
// fails: an unreadable entry is left out, because discovery informs the run and
// must not block it. The result is sorted by path, then target. An empty root
// means the current directory.
func Discover(root string) []Tool {
	if root == "" {
		root = "."
	}
	if insideOwnRepo(root) {
		// Run from a faultline checkout: its .ci/run, Makefile and scripts
		// test faultline, not the system under test.
		return nil
	}
	fsys := os.DirFS(root)
	var tools []Tool
	for _, dir := range []string{"tools", "scripts", "bin"} {
		tools = append(tools, scriptTools(fsys, dir)...)
	}
	for dir, role := range map[string]Role{
		"tests/integration": RoleTests, "tests/stability": RoleTests, "tests/chaos": RoleFault,
		"docs/runbooks": RoleDocs, "docs/testing": RoleDocs, "docs/stability-test-plan.md": RoleDocs,
	} {
		if _, err := fs.Stat(fsys, dir); err == nil {
			tools = append(tools, Tool{Path: dir, Role: role})
		}
	}
	for _, name := range []string{"Makefile", "makefile", "GNUmakefile"} {
		tools = append(tools, targetTools(fsys, name, makeTargetRe)...)
	}
	for _, name := range []string{"justfile", "Justfile", ".justfile"} {
		tools = append(tools, targetTools(fsys, name, justRecipeRe)...)
	}
	if hasXtask(fsys) {
		tools = append(tools, Tool{Path: "xtask", Role: RoleBuildTask, Target: "cargo xtask"})
	}
	tools = append(tools, ciTools(fsys)...)
	sort.Slice(tools, func(i, j int) bool {
		if tools[i].Path != tools[j].Path {
			return tools[i].Path < tools[j].Path
		}
		return tools[i].Target < tools[j].Target
	})
	return tools
}

// scriptTools lists the files under dir (recursively), each with a role
// guessed from its path and its first bytes.
func scriptTools(fsys fs.FS, dir string) []Tool {
	var out []Tool
	_ = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // a missing or unreadable directory simply contributes nothing
		}
		role := guessRole(p + "\n" + head(fsys, p))
		if role == "" {
			role = RoleTool
		}
		out = append(out, Tool{Path: p, Role: role})
		return nil
	})
	return out
}

// targetTools lists the Makefile or justfile targets whose names look like
// cluster, fault, workload or test commands; build and lint targets are noise.
func targetTools(fsys fs.FS, name string, re *regexp.Regexp) []Tool {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil
	}
	var out []Tool
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil || seen[m[1]] || m[1] == ".PHONY" {
			continue
		}
		seen[m[1]] = true
		if role := guessRole(m[1]); role != "" {
			out = append(out, Tool{Path: name, Role: role, Target: m[1]})
		}
	}
	return out
}

// hasXtask reports a cargo xtask setup: the conventional xtask/ crate or an
// alias in .cargo/config.toml.
func hasXtask(fsys fs.FS) bool {
	if _, err := fs.Stat(fsys, "xtask/Cargo.toml"); err == nil {
		return true
	}
	b, err := fs.ReadFile(fsys, ".cargo/config.toml")
	return err == nil && strings.Contains(string(b), "xtask")
}

// ciTools lists CI definitions that mention a fault-injection tool; those are
// wiring the run can reuse (spec §8.1: "CI fault wiring").
func ciTools(fsys fs.FS) []Tool {
	var files []string
	for _, pat := range []string{".github/workflows/*.yml", ".github/workflows/*.yaml", ".gitlab-ci.yml"} {
		m, _ := fs.Glob(fsys, pat) // the patterns are constant and valid
		files = append(files, m...)
	}
	_ = fs.WalkDir(fsys, ".ci", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	var out []Tool
	for _, f := range files {
		if containsAny(strings.ToLower(head(fsys, f)), ciWords) {
			out = append(out, Tool{Path: f, Role: RoleCIFaults})
		}
	}
	return out
}

// guessRole picks the most specific role whose words occur in text. Words are
// matched against whole tokens for the short, ambiguous ones ("up", "gen") and
// as substrings for the rest; "" means no role fits.
func guessRole(text string) Role {
	low := strings.ToLower(text)
	tokens := map[string]bool{}
	for _, t := range wordSplitRe.Split(low, -1) {
		tokens[t] = true
	}
	match := func(words []string) bool {
		for _, w := range words {
			if len(w) <= 5 && !strings.Contains(w, " ") {
				if tokens[w] {
					return true
				}
			} else if strings.Contains(low, w) {
				return true
			}
		}
		return false
	}
	switch {
	case match(faultWords):
		return RoleFault
	case match(clusterWords):
		return RoleCluster
	case match(workloadWords):
		return RoleWorkload
	case match(testWords):
		return RoleTests
	}
	return ""
}

// head returns up to headBytes of a file, or "" when it cannot be read.
func head(fsys fs.FS, name string) string {
	f, err := fsys.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, headBytes)) // a short read still helps the guess
	return string(b)
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// OwnModule is faultline's own Go module path: a go.mod declaring it marks
// faultline's repository.
const OwnModule = "github.com/faultline/faultline"

// insideOwnRepo reports whether dir is in faultline's own repository: the
// nearest go.mod at or above dir declares OwnModule.
func insideOwnRepo(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		if mod, ok := modulePath(filepath.Join(abs, "go.mod")); ok {
			return mod == OwnModule
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return false
		}
		abs = parent
	}
}

// modulePath reads the module directive of a go.mod; ok is false when the
// file cannot be read.
func modulePath(gomod string) (string, bool) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`), true
		}
	}
	return "", true
}
