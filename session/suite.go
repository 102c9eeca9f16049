package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline/faultline/plans"
)

// headerSuite is the plan header field naming the plan's suite file.
const headerSuite = "Suite"

// PlanSuite finds the suite file a plan runs with, as run and lint both
// resolve it: --suite (flag); else the file the plan's **Suite:** header
// names, relative to the plan; else faultline.star beside the plan. The
// header is skipped when its file is missing but one sits beside the plan
// (a plan copied next to its suite, as faultline demo does). It fails, saying
// what it tried, when the file is not there.
func PlanSuite(flag, planPath string, p *plans.Plan) (string, error) {
	exists := func(f string) bool {
		st, err := os.Stat(f)
		return err == nil && !st.IsDir()
	}
	if flag != "" {
		if !exists(flag) {
			return "", fmt.Errorf("--suite %s: no such file", flag)
		}
		return flag, nil
	}
	dir := filepath.Dir(planPath)
	beside := filepath.Join(dir, "faultline.star")
	var named string
	if p != nil {
		if v := strings.Trim(strings.TrimSpace(p.HeaderValue(headerSuite)), "`"); v != "" {
			named = v
			if !filepath.IsAbs(named) {
				named = filepath.Join(dir, named)
			}
		}
	}
	switch {
	case named != "" && exists(named):
		return named, nil
	case exists(beside):
		return beside, nil
	case named != "":
		return "", fmt.Errorf("no suite file: the plan's Suite: header names %s, which does not exist, and there is no %s; fix the header or pass --suite FILE", named, beside)
	}
	return "", fmt.Errorf("no suite file: %s does not exist; pass --suite FILE (the suite defines nodes, db and client) or name it in the plan header as **Suite:** PATH", beside)
}
