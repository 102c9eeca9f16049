package control

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/hostile"
)

// TestHostileCorpusInNodes feeds every input of the hostile corpus to the
// places that take node names and command words: --nodes entries (as the
// name and as the host), nodes-file lines, --local node names, and the
// argv of a command run on a node. A name is refused or stays one safe
// directory inside the local root; an argv word reaches the command as one
// word, byte for byte; nothing runs the payload.
func TestHostileCorpusInNodes(t *testing.T) {
	marker := hostile.Marker(t)
	root := t.TempDir()
	for _, in := range hostile.Inputs(t, marker) {
		t.Run(in.Name, func(t *testing.T) {
			v := in.Value
			for _, entry := range []string{v, "n1=" + v, v + "=127.0.0.1:22"} {
				if n, err := ParseNode(entry); err == nil {
					checkSafeName(t, "--nodes "+entry, n.Name)
				}
			}
			if ns, err := ParseNodesFile(strings.NewReader(v+" 127.0.0.1 22\n"), "nodes"); err == nil {
				for _, n := range ns {
					checkSafeName(t, "nodes file", n.Name)
				}
			}
			if p, sup, err := NewLocalPool(root, []string{v}); err == nil {
				n := p.Nodes()[0]
				checkSafeName(t, "--local", n.Name)
				if rel, err := filepath.Rel(root, n.Dir); err != nil || rel != n.Name || strings.HasPrefix(rel, "..") {
					t.Errorf("--local node %q has directory %s, not its own under %s", v, n.Dir, root)
				}
				p.Close()
				sup.Close()
			}
			res, err := Local("n1").Run(context.Background(), Cmd{Argv: []string{"printf", "%s", v}})
			switch {
			case err != nil && strings.ContainsRune(v, 0):
				// A NUL cannot be passed in an argument; refusing is right.
			case err != nil:
				t.Errorf("printf %q: %v", v, err)
			case string(res.Stdout) != v:
				t.Errorf("printf %q printed %q: the word was not passed as it is", v, res.Stdout)
			}
		})
	}
	ents, err := os.ReadDir(filepath.Dir(root))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != filepath.Base(root) && e.Name() != filepath.Base(filepath.Dir(marker)) {
			t.Errorf("a --local node made %s beside the root", e.Name())
		}
	}
}

// checkSafeName fails unless name is one plain path component without
// control characters.
func checkSafeName(t *testing.T, where, name string) {
	t.Helper()
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\'\"$`;|&*") || hostile.HasControl(name) {
		t.Errorf("%s accepted the node name %q", where, name)
	}
}
