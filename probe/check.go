package probe

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// Presence is the verdict of one matrix row.
type Presence string

// Presence values. Only Yes, AssumedYes and BySUT let a dependent scenario run.
const (
	Yes        Presence = "yes"
	No         Presence = "no"
	AssumedYes Presence = "assumed-yes" // --assume CAP=present: not probed
	AssumedNo  Presence = "assumed-no"  // --assume CAP=absent: not probed
	Skipped    Presence = "skipped"     // the operator chose to skip it
	Unknown    Presence = "unknown"     // no probe can tell; pass --assume to decide
	BySUT      Presence = "by-sut"      // the SUT brings it up (§6b "brought up by SUT")
)

// missing reports whether dependents of a row with this presence must be
// marked INCONCLUSIVE-env. Unknown counts: running on an unverified capability
// is how a run silently no-ops.
func (p Presence) missing() bool { return p == No || p == AssumedNo || p == Skipped || p == Unknown }

// Env is the host the probe looks at. Tests inject one; the zero value of a
// field means the real system.
type Env struct {
	LookPath func(file string) (string, error)
	Run      func(ctx context.Context, path string, args ...string) ([]byte, error) // combined output
	Euid     func() int
	FS       fs.FS // rooted at "/": proc/config.gz, sys/module/..., lib/modules/...
}

// Options carry what the operator said. Keys match a requirement's name or any
// of its capabilities, case-insensitively.
type Options struct {
	Assume  map[string]bool // --assume CAP=present|absent: trusted, not probed
	Said    map[string]bool // answers to Ask: probed anyway, disagreements reported
	Skip    []string        // requirement names, capabilities or scenario ids to skip
	Timeout time.Duration   // per version command; 0 means 5s
	Env     Env
	// Cluster is what was read of the run's nodes (ReadCluster); clock
	// faults and netem are judged from it, not from the host. nil: no
	// nodes were given.
	Cluster *Cluster
}

// Row is one verified requirement.
type Row struct {
	Requirement Requirement `json:"requirement"`
	Present     Presence    `json:"present"`
	Version     string      `json:"version,omitempty"`
	Source      string      `json:"source"`            // the probes run, or "operator"
	Note        string      `json:"note,omitempty"`    // why it is not present, one line
	Install     string      `json:"install,omitempty"` // shown, never run
	Differs     string      `json:"differs,omitempty"` // operator answer vs. probe, when they disagree
}

// Check verifies each requirement (spec §8.1 step 3). For each row, in order:
// an assumption about its name decides it, a skip skips it, a row the SUT
// brings up is not probed, and otherwise every capability it names is probed
// (an assumption about one capability replaces that one probe). Check installs
// nothing and runs only version commands, each bounded by the timeout; a
// cancelled ctx leaves the remaining rows Unknown.
func Check(ctx context.Context, reqs []Requirement, o Options) Matrix {
	env := o.Env.withDefaults()
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	m := Matrix{Rows: make([]Row, 0, len(reqs)), Nodes: o.Cluster.Summary()}
	for _, r := range reqs {
		row := Row{Requirement: r}
		var installs []string // package installs that would supply the absent parts
		if v, ok := lookup(o.Assume, r.Name); ok {
			row.Present, row.Source = AssumedNo, "operator"
			if v {
				row.Present = AssumedYes
			}
			for _, c := range r.Capabilities {
				installs = append(installs, catalogue[c].install)
			}
		} else if skipped(r, o.Skip) {
			row.Present, row.Source = Skipped, "operator"
		} else if r.BySUT {
			row.Present, row.Source = BySUT, "plan §6b"
		} else if ctx.Err() != nil {
			row.Present, row.Source, row.Note = Unknown, "-", "probe cancelled"
		} else {
			installs = verify(ctx, env, o, &row)
		}
		if said, ok := lookup(o.Said, r.Name); ok && (row.Present == Yes || row.Present == No) && said != (row.Present == Yes) {
			row.Differs = fmt.Sprintf("operator said %s, probe found %s", yesNo(said), row.Present)
		}
		if row.Present == No || row.Present == Unknown || row.Present == AssumedNo {
			hint := "" // an added row's hint is the catalogue's; the parts decide
			if r.FromPlan {
				hint = r.InstallHint
			}
			row.Install = installCommand(hint, installs)
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// verify probes every capability of the row that the operator did not assume;
// the row takes the worst outcome of its parts, so it is Yes only when every
// part was probed present. It returns the package installs of the parts
// found (or assumed) absent.
func verify(ctx context.Context, env Env, o Options, row *Row) []string {
	caps := row.Requirement.Capabilities
	if len(caps) == 0 {
		caps = []string{fallbackCommand(row.Requirement.Name)}
	}
	row.Present = Yes
	var versions, sources, notes, installs []string
	for _, c := range caps {
		var res result
		if v, ok := lookup(o.Assume, c); ok {
			res = result{present: AssumedNo, source: "operator", install: catalogue[c].install}
			if v {
				res.present = AssumedYes
			}
		} else if r, ok := o.Cluster.judge(c); ok {
			res = r
		} else {
			res = probeOne(ctx, env, o.Timeout, c)
		}
		versions, sources, notes = appendSome(versions, res.version), appendSome(sources, res.source), appendSome(notes, res.note)
		if res.present != Yes && res.present != AssumedYes {
			installs = append(installs, res.install)
		}
		if rank(res.present) > rank(row.Present) {
			row.Present = res.present
		}
	}
	if len(caps) == 1 && row.Present == Yes && len(versions) == 1 && belowFloor(versions[0], row.Requirement.VersionFloor) {
		row.Present = No
		notes = append(notes, fmt.Sprintf("version %s is below the floor %s", versions[0], row.Requirement.VersionFloor))
	}
	row.Version, row.Source, row.Note = strings.Join(versions, "; "), strings.Join(sources, "; "), strings.Join(notes, "; ")
	return installs
}

// rank orders outcomes so a row takes its worst capability's: a probed
// absence outranks an assumed one, and anything unverified outranks Yes.
func rank(p Presence) int {
	switch p {
	case No:
		return 4
	case AssumedNo:
		return 3
	case Unknown:
		return 2
	case AssumedYes:
		return 1
	}
	return 0
}

// installCommand returns the command that would supply a missing row: the
// plan's hint when it is a package install, else the catalogue's installs for
// the absent parts. Only one-line package installs count as trivial; a service
// setup, root or a kernel feature yields "". The command is shown, never run.
func installCommand(hint string, parts []string) string {
	for _, pm := range []string{"apt-get install", "apt install", "brew install", "dnf install", "yum install", "apk add"} {
		if i := strings.Index(hint, pm); i >= 0 {
			cmd := hint[i:]
			if j := strings.IndexAny(cmd, "`;\n"); j >= 0 {
				cmd = cmd[:j]
			}
			return strings.TrimSpace(cmd)
		}
	}
	var cmds []string
	for _, p := range parts {
		if p != "" && !slices.Contains(cmds, p) {
			cmds = append(cmds, p)
		}
	}
	return strings.Join(cmds, " && ")
}

func appendSome(s []string, v string) []string {
	if v == "" {
		return s
	}
	return append(s, v)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
