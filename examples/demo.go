package examples

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// WriteDemoInputs writes DemoPlan and DemoSuite (with the bug
// switched on, if any) under out/demo-inputs/, so the session names a plan
// a person can open and run again with 'faultline run'. It returns the
// plan's path.
func WriteDemoInputs(out, bug string) (string, error) {
	name := "correct"
	if bug != "" {
		name = bug
	}
	dir := filepath.Join(out, "demo-inputs", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	suite := bytes.Replace(DemoSuite, []byte(`demo_store(bug = "")`), []byte(`demo_store(bug = `+strconv.Quote(bug)+`)`), 1)
	plan := filepath.Join(dir, "demo.md")
	if err := os.WriteFile(plan, DemoPlan, 0o644); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "faultline.star"), suite, 0o644); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	return plan, nil
}
