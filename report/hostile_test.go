package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/hostile"
)

// TestHostileCorpusSessionNames makes a session for a script or plan named
// by every input of the hostile corpus: its slug is one plain path
// component and the session directory lands inside the sessions root.
func TestHostileCorpusSessionNames(t *testing.T) {
	marker := hostile.Marker(t)
	root := t.TempDir()
	for _, in := range hostile.Inputs(t, marker) {
		for _, name := range []string{in.Value, in.Value + ".star", "dir/" + in.Value + ".md"} {
			s := Slug(name)
			if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\'\"$`;|&* ") || hostile.HasControl(s) {
				t.Errorf("%s: Slug(%q) = %q", in.Name, name, s)
				continue
			}
			sess, err := NewSession(root, s, time.Unix(0, 0))
			if err != nil {
				t.Fatalf("%s: session for %q: %v", in.Name, name, err)
			}
			if rel, err := filepath.Rel(root, sess.Dir); err != nil || strings.HasPrefix(rel, "..") || strings.Count(rel, string(filepath.Separator)) != 1 {
				t.Errorf("%s: session of %q at %s, not <root>/<slug>/<time>", in.Name, name, sess.Dir)
			}
		}
	}
}
