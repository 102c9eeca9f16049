package control

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// createdScript is script with StateDir and BinDir moved under root, so the
// recording and removal run on this machine's files.
func createdScript(t *testing.T, root, script string) string {
	t.Helper()
	s := strings.ReplaceAll(script, BinDir, filepath.Join(root, "opt/faultline/bin"))
	s = strings.ReplaceAll(s, StateDir, filepath.Join(root, "run/faultline"))
	if s == script {
		t.Fatal("the script names neither BinDir nor StateDir")
	}
	return s
}

func runCreated(t *testing.T, root, script string, args ...string) string {
	t.Helper()
	out, err := exec.Command("sh", append([]string{"-c", createdScript(t, root, script), "sh"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}

// tree lists every path under root, relative to it.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRemoveCreated: what InstallBinary's preparation and the delay
// agent's record name is removed, with the directories made for it; what
// the node had (a directory that was there, a file of its own beside
// faultline's, a file put into a directory faultline made) stays, and a
// directory that is not empty stays recorded for a later heal. A record
// naming a path outside faultline's directories, or a symlink, removes
// nothing.
func TestRemoveCreated(t *testing.T) {
	tests := []struct {
		name   string
		plant  []string // the node's own files, before faultline runs
		later  []string // files put beside faultline's while it ran
		forged bool     // the record also names a file outside and a symlink
		want   []string // every path left after the removal
		record []string // what the record names after it (relative to root)
	}{
		{name: "nothing of the node's", want: []string{"elsewhere", "elsewhere/victim", "run", "run/.keep"}},
		{name: "own file beside the binary's directory", plant: []string{"opt/faultline/own.conf"},
			want: []string{"elsewhere", "elsewhere/victim", "opt", "opt/faultline", "opt/faultline/own.conf", "run", "run/.keep"}},
		{name: "own files in faultline's directories", plant: []string{"opt/faultline/bin/tool", "run/faultline/own.pid"},
			want: []string{"elsewhere", "elsewhere/victim", "opt", "opt/faultline", "opt/faultline/bin", "opt/faultline/bin/tool",
				"run", "run/.keep", "run/faultline", "run/faultline/own.pid"}},
		{name: "file put into a directory faultline made", later: []string{"opt/faultline/bin/later"},
			want: []string{"elsewhere", "elsewhere/victim", "opt", "opt/faultline", "opt/faultline/bin", "opt/faultline/bin/later",
				"run", "run/.keep", "run/faultline", "run/faultline/created"},
			record: []string{"dir run/faultline", "dir opt", "dir opt/faultline", "dir opt/faultline/bin"}},
		{name: "forged records", forged: true,
			want:   []string{"elsewhere", "elsewhere/victim", "run", "run/.keep", "run/faultline", "run/faultline/created", "run/faultline/link"},
			record: []string{"dir run/faultline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			write := func(rel string) {
				p := filepath.Join(root, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("the node's"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range append([]string{"run/.keep", "elsewhere/victim"}, tt.plant...) {
				write(p)
			}
			bin := filepath.Join(root, "opt/faultline/bin/faultline-0123456789ab")
			state := filepath.Join(root, "run/faultline")
			// What InstallBinary and the delay agent's preparation run.
			runCreated(t, root, CreatedLib+`make_dir "$1" && made file "$2" && made file `+StateDir+`/nfdelay.log || exit 1
`, filepath.Join(root, "opt/faultline/bin"), bin)
			for _, p := range []string{bin, filepath.Join(state, "nfdelay.log")} {
				if err := os.WriteFile(p, []byte("faultline's"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.forged {
				victim := filepath.Join(root, "elsewhere/victim")
				link := filepath.Join(state, "link")
				if err := os.Symlink(victim, link); err != nil {
					t.Fatal(err)
				}
				runCreated(t, root, CreatedLib+`made file "$1" && made file "$2"`, victim, link)
			}
			for _, p := range tt.later {
				write(p)
			}
			out := runCreated(t, root, removeCreatedScript)
			if !strings.Contains(out, "removed "+bin+"\n") || !strings.Contains(out, "removed "+filepath.Join(state, "nfdelay.log")+"\n") {
				t.Errorf("output %q: want the binary and the log removed", out)
			}
			if got := tree(t, root); !slices.Equal(got, tt.want) {
				t.Errorf("left\n  %q\nwant\n  %q\n(output %q)", got, tt.want, out)
			}
			if tt.record != nil {
				data, _ := os.ReadFile(filepath.Join(state, "created"))
				got := strings.Fields(strings.ReplaceAll(string(data), root+"/", ""))
				var want []string
				for _, r := range tt.record {
					want = append(want, strings.Fields(r)...)
				}
				if !slices.Equal(got, want) {
					t.Errorf("record after the removal: %q, want %q", data, tt.record)
				}
			}
			if b, err := os.ReadFile(filepath.Join(root, "elsewhere/victim")); err != nil || string(b) != "the node's" {
				t.Errorf("the node's file: %q, %v", b, err)
			}
			// A second removal finds nothing more to remove.
			if out := runCreated(t, root, removeCreatedScript); out != "" {
				t.Errorf("second removal: %q, want nothing", out)
			}
		})
	}
}
