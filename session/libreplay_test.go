package session

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/interp"
)

// libScript is a scenario whose client and workload come from @shared, so it
// does not load without that root.
const libScript = `load("@shared//reg.star", "reg", "workload")
scenario(
    name = "stale",
    client = reg(),
    workload = workload,
    checker = check.compose([check.linearizable(model = "cas-register"), check.stats()]),
    concurrency = 5,
    budgets = {"smoke": budget(duration = "3s", min_ops = 200)},
)
`

const libReg = `load("@stdlib//workloads.star", "cas_register")
load("values.star", "n")

def reg():
    return client.register(stale_reads = 0.05)

workload = gen.stagger("2ms", cas_register(values = n))
`

// runWithLib runs libScript with --lib shared=<dir>/shared and returns the
// session directory and the library's directory.
func runWithLib(t *testing.T) (sessionDir, lib string) {
	t.Helper()
	dir := t.TempDir()
	lib = filepath.Join(dir, "shared")
	writeLib(t, lib, "5")
	script := filepath.Join(dir, "main.star")
	if err := os.WriteFile(script, []byte(libScript), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := RunScript(context.Background(), Options{Path: script, Seed: 42, Out: filepath.Join(dir, "out"), Libs: []string{"shared=" + lib}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Results.Result != "invalid" {
		t.Fatalf("the stale register was not caught: %s", res.Results.Headline)
	}
	if strings.Contains(res.Replay, " --lib ") {
		t.Errorf("replay command %q repeats --lib: the session keeps the library", res.Replay)
	}
	return res.Results.SessionDir, lib
}

func writeLib(t *testing.T, lib, values string) {
	t.Helper()
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{"reg.star": libReg, "values.star": "n = " + values + "\n"} {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunRecordsLibDigest: the schedule of a run that used --lib names the
// root, the files loaded from it and their digest, and the artifact
// directory keeps those files.
func TestRunRecordsLibDigest(t *testing.T) {
	sess, lib := runWithLib(t)
	h, _, err := interp.ReadSchedule(filepath.Join(sess, "artifacts", "stale", interp.ScheduleFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Libs) != 1 {
		t.Fatalf("schedule libs = %+v, want @shared", h.Libs)
	}
	u := h.Libs[0]
	if u.Name != "shared" || u.Dir != lib || strings.Join(u.Files, ",") != "reg.star,values.star" {
		t.Fatalf("recorded %+v", u)
	}
	now, err := u.DigestNow(lib)
	if err != nil || now != u.SHA256 {
		t.Fatalf("the library's digest now %q (%v), recorded %q", now, err, u.SHA256)
	}
	if kept, err := u.DigestNow(filepath.Join(sess, "artifacts", "stale", "libs", "shared")); err != nil || kept != u.SHA256 {
		t.Errorf("the kept copy's digest %q (%v), recorded %q", kept, err, u.SHA256)
	}
}

// TestReplayRestoresLib: a replay of a session that used --lib needs no
// --lib, even once the library's directory is gone; a --lib given again is
// used, and a warning says when its files differ from the run's.
func TestReplayRestoresLib(t *testing.T) {
	cases := []struct {
		name        string
		prepare     func(t *testing.T, lib string) // what happens to the library after the run
		give        bool                           // pass --lib shared=<lib> to replay
		wantWarning bool
		wantRepro   bool
	}{
		{"no --lib, library deleted", func(t *testing.T, lib string) { os.RemoveAll(lib) }, false, false, true},
		{"no --lib, library changed: the copy is used", func(t *testing.T, lib string) { writeLib(t, lib, "nope") }, false, false, true},
		{"--lib again, unchanged", func(*testing.T, string) {}, true, false, true},
		{"--lib again, a loaded file changed", func(t *testing.T, lib string) { writeLib(t, lib, "6") }, true, true, true},
		{"--lib again, a loaded file gone", func(t *testing.T, lib string) {
			if err := os.Remove(filepath.Join(lib, "values.star")); err != nil {
				t.Fatal(err)
			}
		}, true, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sess, lib := runWithLib(t)
			tc.prepare(t, lib)
			var progress bytes.Buffer
			o := ReplayOptions{Session: sess, Out: t.TempDir(), Progress: &progress}
			if tc.give {
				o.Libs = []string{"shared=" + lib}
			}
			res, err := Replay(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Scenarios) != 1 {
				t.Fatalf("replayed %+v", res.Scenarios)
			}
			out := res.Scenarios[0]
			repro := strings.HasPrefix(out.Reproduced, "yes")
			if repro != tc.wantRepro {
				t.Errorf("reproduced %q (%s), want yes=%v\n%s", out.Reproduced, out.Summary, tc.wantRepro, progress.String())
			}
			warned := strings.Contains(progress.String(), "warning: library @shared changed since the recorded run")
			if warned != tc.wantWarning {
				t.Errorf("warning shown = %v, want %v:\n%s", warned, tc.wantWarning, progress.String())
			}
		})
	}
}
