package cluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveStateDirAndParent: Down removes StateDir's parent only when the
// Up that built the cluster created it (made-parent is in StateDir) and
// nothing else is in it.
func TestRemoveStateDirAndParent(t *testing.T) {
	tests := []struct {
		name       string
		madeParent bool
		foreign    string // a file of someone else's beside StateDir
		wantParent bool   // parent still there afterwards
	}{
		{"up made the parent", true, "", false},
		{"up made the parent, someone put a file there", true, "notes.txt", true},
		{"the parent was there before up", false, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := filepath.Join(t.TempDir(), "faultline")
			dir := filepath.Join(parent, "cluster")
			files := []string{recordFile, nodesFile, "n1/opt/data"}
			if tt.madeParent {
				files = append(files, madeParentFile)
			}
			for _, f := range files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.foreign != "" {
				if err := os.WriteFile(filepath.Join(parent, tt.foreign), []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := removeStateDirAndParent(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("state dir still there: %v", err)
			}
			_, err := os.Stat(parent)
			if got := err == nil; got != tt.wantParent {
				t.Errorf("parent there afterwards: %v, want %v", got, tt.wantParent)
			}
			if tt.foreign != "" {
				if b, err := os.ReadFile(filepath.Join(parent, tt.foreign)); err != nil || string(b) != "mine" {
					t.Errorf("the foreign file: %q, %v", b, err)
				}
			}
		})
	}
}

// TestUpDownLeavesNoParent: up into a state dir whose parent does not
// exist, then down, leaves the host without that parent; a second up of
// the same cluster (unchanged) keeps the note that it made it.
func TestUpDownLeavesNoParent(t *testing.T) {
	needCluster(t)
	cfg := testConfig(t, 1)
	parent := filepath.Join(filepath.Dir(cfg.StateDir), "made-by-up")
	cfg.StateDir = filepath.Join(parent, "state")
	ctx := context.Background()
	if _, err := Up(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	st, err := Up(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Action != Unchanged {
		t.Errorf("second up: %s, want unchanged", st.Action)
	}
	if _, err := os.Stat(filepath.Join(cfg.StateDir, madeParentFile)); err != nil {
		t.Errorf("no %s after up made the parent: %v", madeParentFile, err)
	}
	if err := Down(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(parent); !os.IsNotExist(err) {
		t.Errorf("down left %s, which up created: %v", parent, err)
	}
	if _, err := os.Stat(filepath.Dir(parent)); err != nil {
		t.Errorf("down removed the directory above: %v", err)
	}
}
