package suites_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testdaemon"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/report"
)

// browser is Debian's headless Chromium (chromium-headless-shell; the full
// chromium package works too).
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium-headless-shell", "chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	integration.Need(t, false, "command chromium-headless-shell (Debian package chromium-headless-shell)")
	return ""
}

// page is one URL to render, and where its DOM and screenshot go.
type page struct{ name, url string }

// render loads each page in headless Chromium inside a network namespace
// of its own that has only a loopback link, so the browser can reach
// nothing but the files and the server started beside it (serve, when not
// nil, is a faultline command line run in the same namespace first). It
// returns each page's DOM after rendering; the screenshots go to
// shots/<name>.png.
func render(t *testing.T, shots string, serve []string, port int, pages ...page) map[string]string {
	t.Helper()
	integration.NeedRoot(t) // a network namespace of our own
	integration.NeedCommand(t, "unshare")
	integration.NeedCommand(t, "ip")
	chrome := browser(t)
	work := t.TempDir()
	// --no-sandbox: Chromium's sandbox refuses to run as root. The other
	// flags keep it from trying the network at all; the namespace makes
	// sure it cannot.
	flags := "--no-sandbox --disable-gpu --disable-background-networking --disable-component-update " +
		"--disable-sync --no-first-run --no-default-browser-check --hide-scrollbars --window-size=1400,2000"
	var sh strings.Builder
	sh.WriteString("set -e\nip link set lo up\n")
	if serve != nil {
		fmt.Fprintf(&sh, "%s > %s 2>&1 &\n", shellJoin(serve), quote(filepath.Join(work, "serve.log")))
		// Wait for the server's port (bash's /dev/tcp, no curl needed).
		fmt.Fprintf(&sh, "for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && break; sleep 0.1; done\n", port)
	}
	for _, p := range pages {
		fmt.Fprintf(&sh, "timeout 60 %s %s --dump-dom %s > %s 2>>%s\n", quote(chrome), flags, quote(p.url),
			quote(filepath.Join(work, p.name+".html")), quote(filepath.Join(work, "chromium.log")))
		fmt.Fprintf(&sh, "timeout 60 %s %s --screenshot=%s %s 2>>%s\n", quote(chrome), flags,
			quote(filepath.Join(shots, p.name+".png")), quote(p.url), quote(filepath.Join(work, "chromium.log")))
	}
	out, err := exec.Command("unshare", "--net", "--", "bash", "-c", sh.String()).CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(work, "chromium.log"))
		srv, _ := os.ReadFile(filepath.Join(work, "serve.log"))
		t.Fatalf("headless chromium: %v\n%s\nchromium log (tail): %s\nserve log: %s", err, out, tail(string(log), 2000), srv)
	}
	doms := map[string]string{}
	for _, p := range pages {
		b, err := os.ReadFile(filepath.Join(work, p.name+".html"))
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: no DOM rendered (%v)", p.url, err)
		}
		if fi, err := os.Stat(filepath.Join(shots, p.name+".png")); err != nil || fi.Size() == 0 {
			t.Fatalf("%s: no screenshot (%v)", p.url, err)
		}
		doms[p.name] = string(b)
	}
	return doms
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// shotsDir is where screenshots are kept: $FAULTLINE_ARTIFACTS/browser when
// CI sets it (.ci/run keeps them), else the test's temporary directory.
func shotsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if a := os.Getenv("FAULTLINE_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "browser")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// failingDemo runs the demo with its stale-reads bug into out and returns
// the session directory, the ops the checker's verdict rests on (as
// checker.json names them) and, for every fault window with victims, its
// label naming them ("kill n2", from the history's nemesis completions).
func failingDemo(t *testing.T, out string) (dir string, anomalous []int64, victims []string) {
	t.Helper()
	code, stdout, stderr := clitest.Run(t, "demo", "--bug", "stale-reads", "--seed", "7", "--out", out)
	if code != 1 {
		t.Fatalf("demo --bug stale-reads: exit %d, want 1 (FAIL)\n%s\n%s", code, stdout, stderr)
	}
	dir = clitest.OnlySession(t, filepath.Join(out, "demo-store"))
	data, err := os.ReadFile(filepath.Join(dir, "artifacts", "S1", "checker.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res check.Result
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	var walk func(r check.Result)
	walk = func(r check.Result) {
		if r.Valid == check.Invalid {
			anomalous = append(anomalous, r.Ops...)
		}
		for _, c := range r.Children {
			walk(c)
		}
	}
	walk(res)
	h, err := history.ReadFile(filepath.Join(dir, "artifacts", "S1", "history.jsonl"), history.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range nemesis.FaultWindows(h.Ops) {
		if len(w.Victims) > 0 {
			// As a band labels it: "kill n2".
			victims = append(victims, report.WindowLabel(report.Window{Name: w.Fault, Victims: w.Victims, Shape: w.Shape}))
		}
	}
	return dir, anomalous, victims
}

// TestBrowserFailingDemo opens a failing demo session as a tester would:
// its index.html and timeline.html from disk, and `faultline serve` over
// loopback, in headless Chromium. The rendered pages must show the
// verdict, the anomalous op, the victim of each fault, the plot and the
// timeline.
func TestBrowserFailingDemo(t *testing.T) {
	browser(t)
	integration.NeedRoot(t)
	out := t.TempDir()
	dir, anomalous, victims := failingDemo(t, out)
	if len(anomalous) == 0 || len(victims) == 0 {
		t.Fatalf("results.json names no anomalous op (%v) or no victim (%v)", anomalous, victims)
	}
	shots := shotsDir(t)
	port := testdaemon.FreePort(t)
	rel, err := filepath.Rel(out, dir)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	doms := render(t, shots, []string{clitest.Binary(t), "serve", out, "--addr", "127.0.0.1:" + strconv.Itoa(port)}, port,
		page{"index", "file://" + filepath.Join(dir, "index.html")},
		page{"timeline", "file://" + filepath.Join(dir, "artifacts", "S1", "timeline.html")},
		page{"serve-list", base + "/"},
		page{"serve-fail", base + "/?verdict=FAIL"},
		page{"serve-session", base + "/session/" + filepath.ToSlash(rel) + "/"},
	)

	anchor := regexp.MustCompile(`id="op-(\d+)"[^>]*`)
	for _, name := range []string{"index", "serve-session"} {
		dom := doms[name]
		mustHave(t, name, dom, `id="verdict"`, "FAIL", `class="plot`, "fault-band", `class="anomaly`, "timeline.html")
		// The anomalous op is named in the finding (as "op N" or "#N").
		if !containsOp(dom, anomalous) {
			t.Errorf("%s: the anomalous op %v is not named on the page", name, anomalous)
		}
		for _, v := range victims {
			if !strings.Contains(dom, v) {
				t.Errorf("%s: fault %q (its victim) not named", name, v)
			}
		}
	}
	tl := doms["timeline"]
	mustHave(t, "timeline", tl, "anomaly")
	found := false
	for _, m := range anchor.FindAllStringSubmatch(tl, -1) {
		for _, a := range anomalous {
			if m[1] == strconv.FormatInt(a, 10) {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("timeline: no bar anchored at an anomalous op %v", anomalous)
	}
	for _, v := range victims {
		if !strings.Contains(tl, v) {
			t.Errorf("timeline: fault %q (its victim) not named on its bands", v)
		}
	}
	// The listing: this session, its verdict, a link to its page; the
	// verdict filter keeps it.
	for _, name := range []string{"serve-list", "serve-fail"} {
		mustHave(t, name, doms[name], "FAIL", "demo", "/session/"+filepath.ToSlash(rel))
	}
	t.Logf("screenshots in %s (rendered %s)", shots, time.Now().UTC().Format(time.RFC3339))
}

func mustHave(t *testing.T, name, dom string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(dom, w) {
			t.Errorf("%s: rendered page lacks %q", name, w)
		}
	}
}

// containsOp reports whether the page names one of the ops, as a finding
// does: "op 88", "#88".
func containsOp(dom string, ops []int64) bool {
	for _, o := range ops {
		n := strconv.FormatInt(o, 10)
		if regexp.MustCompile(`(op |#)` + n + `\b`).MatchString(dom) {
			return true
		}
	}
	return false
}
