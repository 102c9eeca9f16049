package interp

import (
	"context"
	"strings"
	"testing"
)

// TestScenarioLogs: where a scenario's logs are and what fails it comes
// from the db recipe's fields and scenario(logs = ...) together; a bad
// declaration is a load error naming the script's line.
func TestScenarioLogs(t *testing.T) {
	const base = `
def f(node): pass
scenario(name = "d", client = client.register(), workload = gen.limit(1, {"f": "read"}),
         checker = check.stats(), db = DB, logs = LOGS)
`
	cases := []struct {
		name, db, logs string
		wantErr        string
		want           string // the merged spec, as %v of its paths, alarms, expected, none
	}{
		{"recipe fields", `struct(setup = f, teardown = f, logs = ["app/app.log"], log_alarms = ["ERROR"], log_expected = ["ConnectionLoss"])`, "None", "",
			"[app/app.log] [] [ERROR] [ConnectionLoss] "},
		{"recipe with system_logs", `struct(setup = f, teardown = f, logs = system_logs(paths = ["a.log"], expected = ["x"]))`, "None", "", "[a.log] [] [] [x] "},
		{"scenario adds patterns to the recipe's paths", `struct(setup = f, teardown = f, logs = ["a.log"])`, `system_logs(expected = ["EOF"])`, "", "[a.log] [] [] [EOF] "},
		{"scenario list of paths", "None", `["x.log"]`, "", "[x.log] [] [] [] "},
		{"none", "None", `system_logs(none = "managed service")`, "", "[] [] [] [] managed service"},
		{"local paths", "None", `system_logs(local_paths = ["/var/log/x.log"])`, "", "[] [/var/log/x.log] [] [] "},
		{"relative local path", "None", `system_logs(local_paths = ["x.log"])`, `main.star:4:`, ""},
		{"bad alarm", "None", `system_logs(paths = ["a"], alarms = ["ERROR("])`, `log pattern "ERROR("`, ""},
		{"bad recipe pattern", `struct(setup = f, teardown = f, log_expected = ["[x"])`, "None", `main.star:3:9: scenario "d": db: expected: log pattern "[x"`, ""},
		{"none with recipe paths", `struct(setup = f, teardown = f, logs = ["a.log"])`, `system_logs(none = "why")`, "but log paths are declared too (a.log)", ""},
		{"not logs", "None", `1`, "logs: want system_logs(...) or a list of log paths", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.NewReplacer("DB", c.db, "LOGS", c.logs).Replace(base)
			dir := writeFiles(t, map[string]string{"main.star": src})
			script, err := Load(context.Background(), dir+"/main.star", LoadOptions{})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Load: %v, want an error containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			l := script.Scenarios[0].Logs
			if got := strings.TrimSpace(fmtSpec(l.Paths, l.Local, l.Alarms, l.Expected, l.None)); got != strings.TrimSpace(c.want) {
				t.Errorf("logs %q, want %q", got, c.want)
			}
		})
	}
}

func fmtSpec(paths, local, alarms, expected []string, none string) string {
	f := func(xs []string) string { return "[" + strings.Join(xs, " ") + "]" }
	return f(paths) + " " + f(local) + " " + f(alarms) + " " + f(expected) + " " + none
}

// TestLogFileNames: a node's logs keep their base names unless two share one.
func TestLogFileNames(t *testing.T) {
	got := logFileNames([]string{"app/app.log", "db/app.log", "/var/log/zk.log"})
	want := map[string]string{"app/app.log": "app/app.log", "db/app.log": "db/app.log", "/var/log/zk.log": "zk.log"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s saved as %q, want %q", k, got[k], v)
		}
	}
}
