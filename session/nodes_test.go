package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSSHPoolChecksKeysFirst: what SSH needs from the user is checked before
// any node is dialled, as an input error naming what is wrong; nodes named
// only by a nodes file that does not exist are rejected the same way.
func TestSSHPoolChecksKeysFirst(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage_key")
	if err := os.WriteFile(garbage, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", dir) // no ~/.ssh keys
	t.Setenv("SSH_AUTH_SOCK", "")
	// Port 9 on loopback: were anything dialled it would fail differently.
	for _, tc := range []struct {
		name  string
		nodes Nodes
		want  string
	}{
		{"missing key file", Nodes{List: "n1=127.0.0.1:9", Keys: []string{filepath.Join(dir, "nope")}}, "ssh key: open " + filepath.Join(dir, "nope")},
		{"not a key", Nodes{List: "n1=127.0.0.1:9", Keys: []string{garbage}}, "ssh key " + garbage},
		{"no key and no agent", Nodes{List: "n1=127.0.0.1:9"}, "no ssh key"},
		{"missing nodes file", Nodes{File: filepath.Join(dir, "nodes")}, "nodes file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.nodes.SSHPool()
			var se *Error
			if p != nil || !errors.As(err, &se) || se.Kind != Rejected || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("SSHPool = %v, %v; want a Rejected error containing %q", p, err, tc.want)
			}
		})
	}
}
