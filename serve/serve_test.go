package serve

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/report"
	"github.com/faultline/faultline/verdict"
)

// recorded is the failing demo session report's tests render.
var recorded = filepath.Join("..", "report", "testdata", "index", "demo-store", "20261202T035833Z")

// sessionsRoot builds a sessions directory: the recorded failing session,
// a later passing script session, an earlier inconclusive one one level
// deeper (another --out), a replay of the failing one, and a directory
// that is no session.
func sessionsRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	copyTree(t, recorded, filepath.Join(root, "demo-store", "20261202T035833Z"))
	writeResults(t, filepath.Join(root, "register", "20261203T100000Z"), report.Results{Kind: report.KindScript, Script: "register.star",
		Seed: 3, Tier: "smoke", SessionVerdict: verdict.Done, Headline: "DONE",
		Units: []report.UnitResult{{ID: "reg", Verdict: verdict.PassSmoke}}})
	writeResults(t, filepath.Join(root, "ci", "etcd", "20261201T080000Z"), report.Results{Kind: report.KindPlan, Plan: "etcd.md",
		Seed: 9, Tier: "hardening", SessionVerdict: verdict.Inconclusive, Headline: "INCONCLUSIVE",
		Units: []report.UnitResult{{ID: "S1", Verdict: verdict.InconclusiveEnv}}})
	writeFile(t, filepath.Join(root, "demo-store", "20261202T040000Z-replay", "replay.json"),
		`{"replay_of":"demo-store/20261202T035833Z","scenarios":[{"scenario":"S1","reproduced":"yes, the same anomaly on the same keys"}]}`)
	writeFile(t, filepath.Join(root, "notes", "readme.txt"), "not a session")
	return root
}

func writeResults(t *testing.T, dir string, r report.Results) {
	t.Helper()
	var b bytes.Buffer
	if err := report.EncodeJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "results.json"), b.String())
}

func writeFile(t *testing.T, name, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(to, rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// get requests path (as written: ".." is not cleaned) from h.
func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://faultline.test/", nil)
	req.URL.Path, req.URL.RawQuery, _ = strings.Cut(path, "?")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestServeListsSessionsMostRecentFirst: every session at any depth, newest
// first, with its plan or script, kind, tier, seeds and verdicts.
func TestServeListsSessionsMostRecentFirst(t *testing.T) {
	h := New(sessionsRoot(t))
	rec := get(t, h, "/")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /: %d %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	order := []string{"register/20261203T100000Z", "demo-store/20261202T040000Z-replay", "demo-store/20261202T035833Z", "ci/etcd/20261201T080000Z"}
	last := -1
	for _, rel := range order {
		i := strings.Index(body, `<a href="/session/`+rel+`/">`)
		if i < 0 {
			t.Fatalf("the list lacks %s:\n%s", rel, body)
		}
		if i < last {
			t.Errorf("%s is listed out of order (most recent first wanted)", rel)
		}
		last = i
	}
	if n := strings.Count(body, `<tr class="session">`); n != len(order) {
		t.Errorf("%d sessions listed, want %d (notes/ is no session)", n, len(order))
	}
	for _, want := range []string{
		`<td>2026-12-03 10:00:00 UTC</td><td>register.star</td><td>script</td><td>smoke</td><td>3</td><td><span class="verdict pass">DONE</span></td><td><div>reg: PASS-smoke</div></td>`,
		`<td>test-sessions/demo-inputs/stale-reads/demo.md</td><td>plan</td><td>smoke</td><td>7</td><td><span class="verdict fail">FAIL</span></td><td><div>S1: FAIL-reproducible</div></td>`,
		`<td>replay</td>`, `<div>S1: reproduced: yes, the same anomaly on the same keys</div>`,
		`<a class="verdict fail" href="/?verdict=FAIL">FAIL (1)</a>`, `<a class="verdict other" href="/?verdict=none">none (1)</a>`,
		`<a class="current" href="/">all (4)</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

// TestServeVerdictFilter: ?verdict= keeps the sessions with that verdict.
func TestServeVerdictFilter(t *testing.T) {
	h := New(sessionsRoot(t))
	for _, c := range []struct {
		verdict string
		want    []string
	}{
		{"FAIL", []string{"demo-store/20261202T035833Z"}},
		{"DONE", []string{"register/20261203T100000Z"}},
		{"none", []string{"demo-store/20261202T040000Z-replay"}},
		{"BLOCKED", nil},
	} {
		body := get(t, h, "/?verdict="+c.verdict).Body.String()
		got := regexp.MustCompile(`<a href="/session/([^"]+)/">`).FindAllStringSubmatch(body, -1)
		var rels []string
		for _, m := range got {
			rels = append(rels, m[1])
		}
		if fmt.Sprint(rels) != fmt.Sprint(c.want) {
			t.Errorf("verdict=%s lists %v, want %v", c.verdict, rels, c.want)
		}
		if len(c.want) == 0 && !strings.Contains(body, "no sessions with verdict BLOCKED") {
			t.Errorf("verdict=%s: no 'no sessions' row", c.verdict)
		}
		if !strings.Contains(body, `<a href="/">all (4)</a>`) {
			t.Errorf("verdict=%s: no link back to all sessions", c.verdict)
		}
	}
}

// TestServeSessionPage: a session's page is its index, rendered on the fly
// (the session has no index.html), with the history browser linked.
func TestServeSessionPage(t *testing.T) {
	h := New(sessionsRoot(t))
	rec := get(t, h, "/session/demo-store/20261202T035833Z")
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/session/demo-store/20261202T035833Z/" {
		t.Fatalf("without its slash: %d to %q, want a redirect to the slash", rec.Code, rec.Header().Get("Location"))
	}
	rec = get(t, h, "/session/demo-store/20261202T035833Z/")
	if rec.Code != http.StatusOK {
		t.Fatalf("session page: %d", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{`<table id="verdict">`, `<section class="unit" id="unit-S1">`, `<div class="plot"><svg`,
		`<a href="/history/demo-store/20261202T035833Z/artifacts/S1/history.jsonl">browse the history</a>`,
		`<a href="/">all sessions</a>`, `<span id="session-verdict" class="verdict fail">FAIL</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the session page lacks %s", want)
		}
	}
	// A directory inside it is listed, with links relative to it.
	rec = get(t, h, "/session/demo-store/20261202T035833Z/artifacts/S1/")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `<a href="./plot.svg">plot.svg</a>`) {
		t.Errorf("artifact directory: %d\n%s", rec.Code, rec.Body)
	}
}

// TestServeFileTypes: files are served with the type their name says.
func TestServeFileTypes(t *testing.T) {
	h := New(sessionsRoot(t))
	base := "/session/demo-store/20261202T035833Z/"
	for _, c := range []struct{ path, ctype, contains string }{
		{"artifacts/S1/plot.svg", "image/svg+xml", "<svg"},
		{"artifacts/S1/history.jsonl", "text/plain; charset=utf-8", `{"index":0,`},
		{"artifacts/S1/checker.txt", "text/plain; charset=utf-8", "linearizable"},
		{"findings/S1.md", "text/plain; charset=utf-8", "# S1: FAIL-reproducible"},
		{"results.json", "application/json", `"session_verdict": "FAIL"`},
		{"artifacts/S1/linearizability.html", "text/html; charset=utf-8", "Porcupine"},
	} {
		rec := get(t, h, base+c.path)
		if rec.Code != http.StatusOK {
			t.Errorf("%s: %d", c.path, rec.Code)
			continue
		}
		if got := rec.Header().Get("Content-Type"); got != c.ctype {
			t.Errorf("%s: Content-Type %q, want %q", c.path, got, c.ctype)
		}
		if !strings.Contains(rec.Body.String(), c.contains) {
			t.Errorf("%s: body lacks %q", c.path, c.contains)
		}
	}
	for name, want := range map[string]string{"x.star": "text/plain; charset=utf-8", "node.log": "text/plain; charset=utf-8",
		"G1c-0.dot": "text/plain; charset=utf-8", "LOG": "text/plain; charset=utf-8", "a.png": "image/png"} {
		if got := ContentType(name); got != want {
			t.Errorf("ContentType(%s) = %q, want %q", name, got, want)
		}
	}
}

// TestServeRefusesEscapes: nothing outside the root is served, by ".." or
// by a symlink; a symlink that stays inside is followed.
func TestServeRefusesEscapes(t *testing.T) {
	root := sessionsRoot(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, outside, "secret")
	sess := filepath.Join(root, "demo-store", "20261202T035833Z")
	for name, target := range map[string]string{
		"escape.txt":  outside,
		"escape-dir":  filepath.Dir(outside),
		"inside.json": filepath.Join(sess, "results.json"),
	} {
		if err := os.Symlink(target, filepath.Join(sess, name)); err != nil {
			t.Fatal(err)
		}
	}
	h := New(root)
	for _, c := range []struct {
		path string
		code int
	}{
		{"/session/../secret.txt", http.StatusForbidden},
		{"/session/demo-store/../../" + filepath.Base(filepath.Dir(outside)) + "/secret.txt", http.StatusForbidden},
		{"/session/demo-store/20261202T035833Z/escape.txt", http.StatusForbidden},
		{"/session/demo-store/20261202T035833Z/escape-dir/secret.txt", http.StatusForbidden},
		{"/session/demo-store/20261202T035833Z/escape-dir/", http.StatusForbidden},
		{"/history/demo-store/20261202T035833Z/escape.txt", http.StatusForbidden},
		{"/history/../../etc/passwd", http.StatusForbidden},
		{"/session/demo-store/20261202T035833Z/inside.json", http.StatusOK},
		{"/session/demo-store/20261202T035833Z/missing.txt", http.StatusNotFound},
		{"/history/demo-store/20261202T035833Z/missing.jsonl", http.StatusNotFound},
		{"/elsewhere", http.StatusNotFound},
	} {
		rec := get(t, h, c.path)
		if rec.Code != c.code {
			t.Errorf("GET %s: %d, want %d", c.path, rec.Code, c.code)
		}
		if strings.Contains(rec.Body.String(), "secret") && c.code != http.StatusOK {
			t.Errorf("GET %s served the file outside the root", c.path)
		}
	}
	// Symlinked directories are not followed when listing sessions either.
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(filepath.Dir(outside), "results.json"), `{"kind":"plan","plan":"outside.md"}`)
	if body := get(t, h, "/").Body.String(); strings.Contains(body, "outside.md") {
		t.Error("a session outside the root, behind a symlink, is listed")
	}
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", rec.Code)
	}
}

// syntheticHistory is n client ops (invoke then completion, processes 0-3,
// read and write, every 7th completion a fail) and a nemesis pair.
func syntheticHistory(t *testing.T, dir string, n int) (string, []history.Op) {
	t.Helper()
	var ops []history.Op
	for i := 0; len(ops) < n; i++ {
		p, f := i%4, []string{"read", "write"}[i%2]
		done := history.OK
		if i%7 == 6 {
			done = history.Fail
		}
		ops = append(ops, history.Op{Process: p, Type: history.Invoke, F: f, Key: int64(i % 3)},
			history.Op{Process: p, Type: done, F: f, Key: int64(i % 3), Value: int64(i)})
		if i == 10 {
			ops = append(ops, history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: "start-partition"},
				history.Op{Process: history.NemesisProcess, Type: history.Info, F: "start-partition", Value: "majority"})
		}
	}
	for i := range ops {
		ops[i].Index, ops[i].Time = int64(i), int64(i)*1e6
	}
	ops[5].Extra = map[string]any{"zxid": int64(12)} // a client's extra field
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, ops); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "s", "20261202T000000Z", "artifacts", "S1", "history.jsonl")
	writeFile(t, filepath.Join(dir, "s", "20261202T000000Z", "session-log.md"), "# Session log\n")
	writeFile(t, name, b.String()+`{"index":99999,"time":`) // a torn last line, as a killed run leaves
	return name, ops
}

var opRow = regexp.MustCompile(`<tr id="op-(\d+)" class="(\w+)[^"]*"><td><a href="#op-\d+">\d+</a></td><td>[^<]*</td><td>([^<]*)</td><td class="type">\w+</td><td>([^<]*)</td>`)

// TestServeHistoryBrowser: a history page by page and filtered, ops
// anchored by index, a torn line shown as what it is.
func TestServeHistoryBrowser(t *testing.T) {
	root := t.TempDir()
	_, ops := syntheticHistory(t, root, 1000)
	h := New(root)
	base := "/history/s/20261202T000000Z/artifacts/S1/history.jsonl"
	type row struct{ index, typ, process, f string }
	rows := func(body string) []row {
		var out []row
		for _, m := range opRow.FindAllStringSubmatch(body, -1) {
			out = append(out, row{m[1], m[2], m[3], m[4]})
		}
		return out
	}
	// Paging: page 3 of 100 is ops 200-299.
	rec := get(t, h, base+"?page=3&per=100")
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	got := rows(rec.Body.String())
	if len(got) != 100 || got[0].index != "200" || got[99].index != "299" {
		t.Fatalf("page 3 of 100: %d rows, %v ... %v", len(got), got[0], got[len(got)-1])
	}
	body := rec.Body.String()
	for _, want := range []string{"page 3 of 11: 1001 of 1001 lines match", `<a href="/session/s/20261202T000000Z/">the session</a>`,
		`<a rel="prev" href="` + base + `?page=2&amp;per=100">previous</a>`, `<a rel="next" href="` + base + `?page=4&amp;per=100">next</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page 3 lacks %s", want)
		}
	}
	// A client's extra fields are shown in the op's row.
	body = get(t, h, base+"?per=100").Body.String()
	if row := regexp.MustCompile(`<tr id="op-5" .*</tr>`).FindString(body); !strings.Contains(row, `<td class="v">{&#34;zxid&#34;:12}</td></tr>`) {
		t.Errorf("op 5's row does not show its extra field zxid: %s", row)
	}
	// The last page holds the torn line.
	body = get(t, h, base+"?page=11&per=100").Body.String()
	if !strings.Contains(body, `<tr class="bad"><td colspan="11" class="note">line 1001 is no op:`) {
		t.Errorf("the torn last line is not shown:\n%s", body)
	}
	// Filters: every row matches, and all that match are counted.
	for _, c := range []struct{ query, typ, process, f string }{
		{"type=fail", "fail", "", ""},
		{"process=3&f=write", "", "p3", "write"},
		{"process=p2&type=ok&f=read", "ok", "p2", "read"},
		{"process=nemesis", "", "nemesis", ""},
	} {
		want := 0
		for _, op := range ops {
			p := fmt.Sprintf("p%d", op.Process)
			if op.Process == history.NemesisProcess {
				p = "nemesis"
			}
			if (c.typ == "" || string(op.Type) == c.typ) && (c.process == "" || p == c.process) && (c.f == "" || op.F == c.f) {
				want++
			}
		}
		body := get(t, h, base+"?per=5000&"+c.query).Body.String()
		got := rows(body)
		if len(got) != want || want == 0 {
			t.Errorf("%s: %d rows, want %d", c.query, len(got), want)
		}
		if !strings.Contains(body, fmt.Sprintf(": %d of 1001 lines match", want)) {
			t.Errorf("%s: the count of matches is not %d", c.query, want)
		}
		for _, r := range got {
			if c.typ != "" && r.typ != c.typ || c.process != "" && r.process != c.process || c.f != "" && r.f != c.f {
				t.Errorf("%s: row %v does not match", c.query, r)
				break
			}
		}
	}
	// ?op=N goes to the page holding op N, at its anchor.
	rec = get(t, h, base+"?per=100&op=457")
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusFound || loc != base+"?page=5&per=100#op-457" {
		t.Errorf("op=457: %d to %q", rec.Code, loc)
	}
	if rec := get(t, h, base+"?op=5000"); rec.Code != http.StatusNotFound {
		t.Errorf("op=5000 (none): %d", rec.Code)
	}
	if rec := get(t, h, base+"?op=x"); rec.Code != http.StatusBadRequest {
		t.Errorf("op=x: %d", rec.Code)
	}
	// Out-of-range paging gives an empty page, not an error.
	if body := get(t, h, base+"?page=99&per=100").Body.String(); !strings.Contains(body, "no ops on this page") {
		t.Error("page 99 is not an empty page")
	}
}

// TestScanHistoryReadsOnlyThePage: a page keeps only its own rows however
// long the file, and a line longer than the limit is reported, not loaded.
func TestScanHistoryReadsOnlyThePage(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&b, `{"index":%d,"time":%d,"process":%d,"type":"invoke","f":"read"}`+"\n", i, i, i%5)
	}
	page, err := ScanHistory(strings.NewReader(b.String()), HistoryQuery{Page: 7, Per: 10}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Rows) != 10 || page.Rows[0].Op.Index != 60 || page.Matched != 50000 || page.Lines != 50000 {
		t.Errorf("page 7: %d rows from %v, %d matched of %d", len(page.Rows), page.Rows[0].Op, page.Matched, page.Lines)
	}
	long := `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","value":"` + strings.Repeat("x", maxLine) + `"}` + "\n" +
		`{"index":1,"time":1,"process":0,"type":"ok","f":"read"}`
	page, err = ScanHistory(io.MultiReader(strings.NewReader(long)), HistoryQuery{}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Rows) != 2 || page.Rows[0].Op != nil || !strings.Contains(page.Rows[0].Err, "longer than") || page.Rows[1].Op == nil || page.Rows[1].Op.Index != 1 {
		t.Errorf("a too-long line: %+v", page.Rows)
	}
}

// TestAddrWarning: loopback is quiet; anything else is allowed with a
// warning; a malformed address is an error.
func TestAddrWarning(t *testing.T) {
	for _, c := range []struct {
		addr    string
		warn    string // substring; "" for none
		wantErr bool
	}{
		{"127.0.0.1:8080", "", false},
		{"127.0.0.2:8080", "", false},
		{"[::1]:8080", "", false},
		{"localhost:0", "", false},
		{"0.0.0.0:8080", "every network interface", false},
		{":8080", "every network interface", false},
		{"[::]:8080", "every network interface", false},
		{"192.168.1.5:8080", "192.168.1.5 is not a loopback address", false},
		{"example.com:80", "example.com is a host name", false},
		{"127.0.0.1", "", true},
		{"127.0.0.1:http", "", true},
		{"127.0.0.1:70000", "", true},
	} {
		warn, err := AddrWarning(c.addr)
		if (err != nil) != c.wantErr {
			t.Errorf("%s: error %v, want error %v", c.addr, err, c.wantErr)
			continue
		}
		if c.warn == "" && warn != "" || c.warn != "" && !strings.Contains(warn, c.warn) {
			t.Errorf("%s: warning %q, want %q", c.addr, warn, c.warn)
		}
	}
}
