package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/golden"
)

// recordedSession is a failing demo session (faultline demo --bug
// stale-reads --seed 7), cut to the files index.html shows; its history
// keeps its first 400 lines.
var recordedSession = filepath.Join("testdata", "index", "demo-store", "20261202T035833Z")

// TestRenderIndexRecordedSession renders the recorded failing session and
// checks the page's structure, then its bytes against the golden file.
func TestRenderIndexRecordedSession(t *testing.T) {
	var b bytes.Buffer
	if err := RenderIndex(&b, recordedSession); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<span id="session-verdict" class="verdict fail">FAIL</span>`,
		`<tr><td>Kind</td><td>plan</td></tr>`,
		`<tr><td>Seed</td><td>7</td></tr>`,
		`<tr><td>Tier</td><td>smoke</td></tr>`,
		`<tr><td>Started</td><td>2026-12-02 03:58:33 UTC</td></tr>`,
		// The verdict table links the unit to its section.
		`<table id="verdict">`,
		`<tr><td><a href="#unit-S1">S1</a></td><td><span class="verdict fail">FAIL-reproducible</span></td><td>oracle violation: not linearizable on key &#34;2&#34;: op #88-&gt;#89`,
		`<section class="unit" id="unit-S1">`,
		// Findings rendered from Markdown, their links made relative to
		// the session, the audit boxes as GFM task lists.
		`<h3>S1: FAIL-reproducible</h3>`,
		`<li><strong>Artifacts:</strong> <a href="artifacts/S1/">artifacts/S1/</a></li>`,
		`<input disabled="" type="checkbox"> WO7 Symmetric partitions only — fail`,
		// The plot inlined, its ids namespaced.
		`<div class="plot"><svg xmlns="http://www.w3.org/2000/svg"`,
		`id="u0-plot-hatch"`,
		`<a class="porcupine" href="artifacts/S1/linearizability.html">`,
		`<a href="artifacts/S1/history.jsonl">history.jsonl</a>`,
		`<pre class="checker">invalid: linearizable invalid, stats valid`,
		`Op #88-&gt;#89 (p2 read -&gt; 0 @&#34;2&#34;) cannot be linearized.`,
		// findings/report.md with its GFM table.
		`<section id="report">`,
		`<th>Nemesis landing evidence</th>`,
		// Every file, linked, with its size.
		`<tr><td><a href="artifacts/S1/plot.svg">artifacts/S1/plot.svg</a></td><td>73 KiB</td></tr>`,
		`<tr><td><a href="session-log.md">session-log.md</a></td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// The plot is inlined, not shown a second time from the findings'
	// image; no timeline was recorded, so none is framed.
	if n := strings.Count(page, "<svg"); n != 1 {
		t.Errorf("%d <svg> elements, want the plot's only", n)
	}
	if strings.Contains(page, `<img`) || strings.Contains(page, `class="timeline"`) {
		t.Error("an <img> or a timeline on a page whose session has neither beyond the inlined plot")
	}
	checkSelfContained(t, page, false)
	golden.Check(t, filepath.Join("testdata", "index.golden.html"), b.Bytes())
}

// checkSelfContained: no script, and every link and source relative and
// inside the session directory, so the directory can be copied or zipped.
// With up, a link to a sibling session ("../...") written in the findings
// is allowed.
func checkSelfContained(t *testing.T, page string, up bool) {
	t.Helper()
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("the page has a <script>")
	}
	for _, m := range regexp.MustCompile(`\s(?:href|src)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		u := m[1]
		if strings.HasPrefix(u, "#") {
			continue
		}
		first, _, _ := strings.Cut(u, "/")
		if strings.Contains(first, ":") || strings.HasPrefix(u, "/") || !up && strings.HasPrefix(u, "../") {
			t.Errorf("link %q is not relative to the session directory", u)
		}
	}
}

// TestWriteIndex writes index.html atomically and leaves no temporary file.
func TestWriteIndex(t *testing.T) {
	dir := copySession(t)
	if err := WriteIndex(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := RenderIndex(&want, dir); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("index.html differs from what RenderIndex renders (is index.html listed among its own files?)")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if err := RenderIndex(&want, filepath.Join(dir, "results.json")); err == nil {
		t.Error("RenderIndex of a file succeeded")
	}
	if err := RenderIndex(&want, filepath.Join(dir, "missing")); err == nil {
		t.Error("RenderIndex of a missing directory succeeded")
	}
}

// copySession copies the recorded session into a temporary directory
// named as a session is.
func copySession(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo-store", "20261202T035833Z")
	err := filepath.Walk(recordedSession, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(recordedSession, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRenderIndexWhatTheDirectoryHolds: each part of the page comes from
// its file, and a session missing files (killed, replayed, reduced) still
// renders, saying what is missing.
func TestRenderIndexWhatTheDirectoryHolds(t *testing.T) {
	const graphvizSVG = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<!-- Generated by graphviz -->
<svg width="62pt" height="116pt" viewBox="0 0 62 116" xmlns="http://www.w3.org/2000/svg">
<g id="graph0" class="graph"><title>G1c</title><g id="node1" class="node"><text>T1</text></g></g>
</svg>
`
	cases := []struct {
		name     string
		recorded bool              // start from the recorded session
		files    map[string]string // written over it ("" deletes)
		want     []string
		notWant  []string
	}{
		{
			name:    "empty directory",
			want:    []string{"results.json is missing", "<td>Kind</td><td>unknown</td>", "no units recorded", "none recorded", `<table class="files">`},
			notWant: []string{`class="unit"`, `id="report"`},
		},
		{
			name: "killed run: a log and a history only",
			files: map[string]string{
				"session-log.md":                "# Session log: x @ 20261202T035833Z\n\n**Plan:** plans/p.md\n**Seed:** 42\n**Tier:** smoke\n",
				"artifacts/S1/history.jsonl":    `{"index":0,"time":1,"process":0,"type":"invoke","f":"read"}` + "\n",
				"artifacts/harness/S1_x.star":   "# compiled\n",
				"artifacts/S1-rerun1/plot.svg":  "<svg></svg>",
				"artifacts/S2/db-cycle.log":     "teardown\n",
				"metrics/.keep":                 "",
				"findings/.keep":                "",
				"logs/S1/n1/node.log":           "started\n",
				"artifacts/S1/history.jsonl.gz": "",
			},
			want: []string{"<h1>plans/p.md</h1>", "<td>Seed</td><td>42</td>", "results.json is missing",
				`<a href="#unit-S1">S1</a></td><td><span class="verdict other">no verdict</span></td><td>the run stopped before deciding it</td>`,
				`<a href="artifacts/S1/history.jsonl">history.jsonl</a>`, `<a href="artifacts/S1-rerun1/">re-run artifacts/S1-rerun1/</a>`,
				`<a href="logs/S1/n1/node.log">logs/S1/n1/node.log</a>`},
			// harness/ and S2 (no history) are no units; the re-run is S1's.
			notWant: []string{`id="unit-harness"`, `id="unit-S2"`, `id="unit-S1-rerun1"`},
		},
		{
			name:  "findings without results.json",
			files: map[string]string{"findings/S1.md": "# S1: FAIL-reproducible\n\nbody\n", "findings/S5_api.md": "# S5/api: PASS-smoke\n"},
			want: []string{`<a href="#unit-S1">S1</a></td><td><span class="verdict fail">FAIL-reproducible</span>`,
				`<a href="#unit-S5_api">S5/api</a></td><td><span class="verdict pass">PASS-smoke</span>`, `<section class="unit" id="unit-S5_api">`},
		},
		{
			name:     "unreadable results.json",
			recorded: true,
			files:    map[string]string{"results.json": "{\"kind\": "},
			// It says so, and the units come from the findings instead.
			want: []string{"results.json: unexpected end of JSON input", `<section class="unit" id="unit-S1">`, `<h3>S1: FAIL-reproducible</h3>`},
		},
		{
			name: "replay session",
			files: map[string]string{
				"replay.json":                `{"replay_of":"test-sessions/demo-store/20261202T035833Z","scenarios":[{"scenario":"S1","reproduced":"yes, the same anomaly on the same keys","summary":"not linearizable on key 2"}]}`,
				"artifacts/S1/checker.txt":   "invalid\n",
				"artifacts/S1/history.jsonl": "",
				"findings/report.md":         "# Replay of <session>\n\nsee [the original](../../20261202T035833Z/)\n",
			},
			want: []string{"<td>Kind</td><td>replay</td>", "<h1>test-sessions/demo-store/20261202T035833Z</h1>",
				`<span class="verdict fail">reproduced: yes, the same anomaly on the same keys</span></td><td>not linearizable on key 2</td>`,
				`<pre class="checker">invalid`, "<h3>Replay of &lt;session&gt;</h3>"},
			notWant: []string{"results.json is missing"},
		},
		{
			name: "reduce session",
			files: map[string]string{
				"reduce.json": `{"reduce_of":"orig","scenario":"S1","events_before":9,"events_after":2,"reproduced":3,"of":3,"history_shrink":"12 of 900 ops"}`,
			},
			want: []string{"<td>Kind</td><td>reduce</td>", "schedule 9 → 2 events; the minimal schedule failed in 3 of 3 replays; history: 12 of 900 ops"},
		},
		{
			name:     "timeline present",
			recorded: true,
			files:    map[string]string{"artifacts/S1/timeline.html": "<html>lanes</html>"},
			want: []string{`<iframe class="timeline" src="artifacts/S1/timeline.html" title="timeline"></iframe>`,
				`<a href="artifacts/S1/timeline.html">open the timeline</a>`},
		},
		{
			name:     "no plot, no porcupine",
			recorded: true,
			files:    map[string]string{"artifacts/S1/plot.svg": "", "artifacts/S1/linearizability.html": ""},
			notWant:  []string{`class="plot"`, `class="porcupine"`, "<svg"},
		},
		{
			name: "cycle graphs",
			files: map[string]string{
				"findings/T1.md":                      "# T1: FAIL-reproducible\n",
				"artifacts/T1/history.jsonl":          "",
				"artifacts/T1/elle/G1c-0.svg":         graphvizSVG,
				"artifacts/T1/elle/G1c-0.dot":         "digraph {}",
				"artifacts/T1/elle/G2-item-0.dot":     "digraph {}",
				"artifacts/T1/elle/explanations.txt":  "G1c: T1 < T2 < T1\n",
				"artifacts/T1/elle/explanation-2.txt": "not shown inline\n",
			},
			want: []string{`<h3>Cycle graphs</h3>`, `<figure class="graph"><svg width="62pt"`, `<g id="u0-g0-graph0" class="graph">`,
				`<figcaption>artifacts/T1/elle/G1c-0.svg</figcaption>`, `<li><a href="artifacts/T1/elle/G2-item-0.dot">artifacts/T1/elle/G2-item-0.dot</a></li>`},
			// The DOT that has its SVG is not listed as unrendered; no XML
			// prolog inside HTML.
			notWant: []string{`<li><a href="artifacts/T1/elle/G1c-0.dot">`, "<?xml", "<!DOCTYPE svg"},
		},
		{
			name:     "an SVG that could run a script is not inlined",
			recorded: true,
			files:    map[string]string{"artifacts/S1/plot.svg": `<svg xmlns="http://www.w3.org/2000/svg"><rect onload="alert(1)"/></svg>`},
			want:     []string{`<div class="plot"><img src="artifacts/S1/plot.svg" alt="artifacts/S1/plot.svg"></div>`},
			notWant:  []string{`onload="alert(1)"`},
		},
		{
			name:     "an SVG with a link out or a stylesheet is not inlined",
			recorded: true,
			files: map[string]string{"artifacts/S1/plot.svg": `<svg xmlns="http://www.w3.org/2000/svg"><a href="&#106;avascript:alert(1)"><text>x</text></a></svg>`,
				"artifacts/S1/elle/G0-0.svg": `<svg><style>body{display:none}</style></svg>`},
			want:    []string{`<div class="plot"><img src="artifacts/S1/plot.svg"`, `<figure class="graph"><img src="artifacts/S1/elle/G0-0.svg"`},
			notWant: []string{`avascript`, `display:none`},
		},
		{
			name:     "raw HTML in findings is shown as text",
			recorded: true,
			files: map[string]string{"findings/S1.md": "# S1: FAIL-reproducible\n\n- error <nil> from <b>x</b>\n\n<script>alert(1)</script>\n\n" +
				"[bad](javascript:alert(1)) [up](../results.json) [abs](https://example.com/)\n"},
			want: []string{"error &lt;nil&gt; from &lt;b&gt;x&lt;/b&gt;", `<pre class="raw-html">&lt;script&gt;alert(1)&lt;/script&gt;`,
				`<a href="results.json">up</a>`},
			notWant: []string{"<script>", `href="javascript:`, "<b>x</b>"},
		},
		{
			name:     "file names are escaped",
			recorded: true,
			files:    map[string]string{"artifacts/S1/a b<c>.txt": "x", "x:y.log": "y"},
			want:     []string{`<a href="artifacts/S1/a%20b%3Cc%3E.txt">artifacts/S1/a b&lt;c&gt;.txt</a>`, `<a href="./x:y.log">x:y.log</a>`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "20261202T035833Z")
			if c.recorded {
				dir = copySession(t)
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, body := range c.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if body == "" && c.recorded {
					os.Remove(p)
					continue
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var b bytes.Buffer
			if err := RenderIndex(&b, dir); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			for _, w := range c.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %s", w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(page, w) {
					t.Errorf("the page has %s", w)
				}
			}
			if c.name != "raw HTML in findings is shown as text" {
				checkSelfContained(t, page, true)
			}
		})
	}
}

// TestRebase: links written relative to findings/ become relative to the
// session; others stay as written.
func TestRebase(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"../artifacts/S1/", "artifacts/S1/"},
		{"../artifacts/S1/plot.svg", "artifacts/S1/plot.svg"},
		{"S2.md", "findings/S2.md"},
		{"S2.md#why", "findings/S2.md#why"},
		{"../../other/", "../other/"},
		{"#anchor", "#anchor"},
		{"https://example.com/x", "https://example.com/x"},
		{"/abs/path", "/abs/path"},
		{"../a b.txt", "a%20b.txt"},
	} {
		if got := rebase(c.in, "findings"); got != c.want {
			t.Errorf("rebase(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestUnitAnchor: arms and odd names give ids a URL fragment can name.
func TestUnitAnchor(t *testing.T) {
	for in, want := range map[string]string{"S1": "unit-S1", "S5/api": "unit-S5_api", "my scenario": "unit-my_scenario"} {
		if got := UnitAnchor(in); got != want {
			t.Errorf("UnitAnchor(%q) = %q, want %q", in, got, want)
		}
	}
}
