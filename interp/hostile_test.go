package interp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/syntax"

	"github.com/faultline/faultline/internal/hostile"
)

// TestHostileCorpusLoadPaths uses every input of the hostile corpus as a
// load() path: as it is, under a --lib root and under @stdlib. None loads
// (none names a module inside its root), no payload runs, and no error
// shows the content of a file outside the roots (a planted secret two
// levels up, or /etc/passwd).
func TestHostileCorpusLoadPaths(t *testing.T) {
	marker := hostile.Marker(t)
	const secret = "SECRET-OUTSIDE-THE-ROOTS"
	dir := writeFiles(t, map[string]string{
		"lib/ok.star": "ok = 1\n",
		"etc/passwd":  secret + "\n",
		"secret.star": "fail(\"" + secret + "\")\n",
	})
	scripts := filepath.Join(dir, "scripts", "a")
	if err := os.MkdirAll(scripts, 0o755); err != nil {
		t.Fatal(err)
	}
	libs := map[string]string{"lib": filepath.Join(dir, "lib")}
	main := filepath.Join(scripts, "main.star")
	for _, in := range hostile.Inputs(t, marker) {
		for _, p := range []string{in.Value, "@lib//" + in.Value, "@stdlib//" + in.Value, "../../" + in.Value} {
			src := "load(" + syntax.Quote(p, false) + ", \"x\")\n"
			if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(context.Background(), main, LoadOptions{Libs: libs})
			if err == nil {
				t.Errorf("%s: load(%q) succeeded", in.Name, p)
				continue
			}
			if msg := err.Error(); strings.Contains(msg, secret) || strings.Contains(msg, "root:x:0") {
				t.Errorf("%s: load(%q) showed a file outside the roots: %v", in.Name, p, err)
			}
		}
	}
}
