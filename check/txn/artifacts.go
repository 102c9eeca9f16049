package txn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// dotTimeout bounds one Graphviz run; cycles are small, so this is generous.
const dotTimeout = 30 * time.Second

// WriteArtifacts writes what a person needs to look at r into dir (created if
// missing): explanations.txt with the whole explanation, and for every cycle
// anomaly <type>-<n>.dot plus <type>-<n>.svg rendered by Graphviz's dot. When
// dot is not on the PATH (or fails on a file) the .dot files are still
// written, explanations.txt says the SVGs were not rendered, and the same note
// is appended to r.Incomplete so callers can tell people; that is not an
// error. It returns the paths written.
func WriteArtifacts(dir string, r *Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("txn artifacts: %w", err)
	}
	dotBin, lookErr := exec.LookPath("dot")
	var written, unrendered []string
	types := make([]string, 0, len(r.Anomalies))
	for typ := range r.Anomalies {
		types = append(types, typ)
	}
	sort.Strings(types)
	for _, typ := range types {
		for i, a := range r.Anomalies[typ] {
			if a.DOT == "" {
				continue
			}
			base := filepath.Join(dir, fmt.Sprintf("%s-%d", typ, i))
			if err := os.WriteFile(base+".dot", []byte(a.DOT), 0o644); err != nil {
				return written, fmt.Errorf("txn artifacts: %w", err)
			}
			written = append(written, base+".dot")
			if lookErr != nil {
				unrendered = append(unrendered, filepath.Base(base)+".dot")
				continue
			}
			if err := renderSVG(dotBin, base); err != nil {
				unrendered = append(unrendered, fmt.Sprintf("%s.dot (%v)", filepath.Base(base), err))
				continue
			}
			written = append(written, base+".svg")
		}
	}
	text := r.Explanation + "\n"
	if len(unrendered) > 0 {
		why := "Graphviz's dot is not on the PATH"
		if lookErr == nil {
			why = "Graphviz's dot failed"
		}
		note := fmt.Sprintf("SVG not rendered (%s) for %s", why, strings.Join(unrendered, ", "))
		r.Incomplete = append(r.Incomplete, note)
		text += "\n" + note + ".\n"
	}
	path := filepath.Join(dir, "explanations.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return written, fmt.Errorf("txn artifacts: %w", err)
	}
	return append(written, path), nil
}

// renderSVG runs dot on base.dot, writing base.svg.
func renderSVG(dotBin, base string) error {
	ctx, cancel := context.WithTimeout(context.Background(), dotTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, dotBin, "-Tsvg", "-o", base+".svg", base+".dot").CombinedOutput()
	if err != nil {
		_ = os.Remove(base + ".svg")
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return errors.New(msg)
		}
		return err
	}
	return nil
}
