package control

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSweepUploads: the sweeps remove only upload temporaries in BinDir
// (regular files named .*.faultline-tmp), never a symlink so named or its
// target, nor other files; the idle sweep also spares a temporary written
// in the last minute. BinDir is replaced by a test directory.
func TestSweepUploads(t *testing.T) {
	tests := []struct {
		name   string
		script string
		kept   []string
	}{
		{"heal", SweepUploads, []string{".keep.txt", "faultline-0123", "x.faultline-tmp", ".dir.faultline-tmp", ".link.faultline-tmp"}},
		{"before an upload", SweepIdleUploads, []string{".keep.txt", "faultline-0123", "x.faultline-tmp", ".dir.faultline-tmp", ".link.faultline-tmp", ".fresh.1.faultline-tmp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			outside := filepath.Join(t.TempDir(), "target")
			write := func(name string) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			old := time.Now().Add(-5 * time.Minute)
			for _, n := range []string{".faultline-abc.1.faultline-tmp", ".keep.txt", "faultline-0123", "x.faultline-tmp"} {
				if err := os.Chtimes(write(n), old, old); err != nil {
					t.Fatal(err)
				}
			}
			write(".fresh.1.faultline-tmp")
			if err := os.Mkdir(filepath.Join(dir, ".dir.faultline-tmp"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(outside, []byte("not ours"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, ".link.faultline-tmp")); err != nil {
				t.Fatal(err)
			}
			script := strings.ReplaceAll(tt.script, BinDir, dir)
			if script == tt.script {
				t.Fatal("the sweep does not name BinDir")
			}
			out, err := exec.Command("sh", "-c", script).CombinedOutput()
			if err != nil {
				t.Fatalf("sweep: %v\n%s", err, out)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			for _, e := range ents {
				left = append(left, e.Name())
			}
			want := slices.Clone(tt.kept)
			slices.Sort(want)
			if !slices.Equal(left, want) {
				t.Errorf("left %q, want %q (output %q)", left, want, out)
			}
			if !strings.Contains(string(out), "removed upload temporary "+filepath.Join(dir, ".faultline-abc.1.faultline-tmp")) {
				t.Errorf("the sweep did not report the temporary it removed: %q", out)
			}
			if b, err := os.ReadFile(outside); err != nil || string(b) != "not ours" {
				t.Errorf("the symlink's target: %q, %v", b, err)
			}
		})
	}
}
