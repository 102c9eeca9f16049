package nemesis

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckFillPath: a fill file's path is clean, absolute and free of
// control characters, since heal reads the state file line by line.
func TestCheckFillPath(t *testing.T) {
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{"/var/lib/db/fill", true},
		{"/data/it's here", true},
		{"relative/fill", false},
		{"/var/../etc/fill", false},
		{"/", false},
		{"/tmp/a\nfill /etc/passwd", false},
		{"/tmp/a\rb", false},
		{"/tmp/a\x00b", false},
	} {
		if err := checkFillPath(tt.path); (err == nil) != tt.ok {
			t.Errorf("checkFillPath(%q) = %v, want ok %v", tt.path, err, tt.ok)
		}
	}
}

// TestStateNoteRefusesNewline: the node-side note refuses a value with a
// newline, so no value can forge a second record that heal would act on.
func TestStateNoteRefusesNewline(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	script := stateLib + `state=$1
note fill "/tmp/ok" || exit 1
if note fill "$(printf '/tmp/a\nfill /etc/passwd')"; then exit 2; fi
`
	out, err := exec.Command("sh", "-c", script, "sh", state).CombinedOutput()
	if err != nil {
		t.Fatalf("sh: %v\n%s", err, out)
	}
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); got != "fill /tmp/ok\n" || strings.Contains(got, "/etc/passwd") {
		t.Errorf("state file = %q, want only the one record", got)
	}
}
