package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/faultline/faultline/internal/bytesize"
)

// IndexFile is the page WriteIndex writes in a session directory.
const IndexFile = "index.html"

// Limits that keep one page readable and bounded whatever a session holds:
// a text file longer than maxInlineText is cut (the whole file stays linked),
// an SVG bigger than maxInlineSVG is shown as <img> rather than inlined, and
// the file list stops at maxListedFiles.
const (
	maxInlineText  = 256 << 10
	maxInlineSVG   = 4 << 20
	maxListedFiles = 5000
	maxMarkdown    = 2 << 20
)

// SessionInfo is what a session directory says about itself at a glance:
// the header of its index.html and its row in `faultline serve`'s list.
// Every field may be empty: a run killed half-way leaves some files only.
type SessionInfo struct {
	Dir      string
	Kind     string    // plan, script, replay or reduce; "" when nothing says
	Source   string    // the plan or script run; for a replay or reduction, the original session
	Started  time.Time // from the directory's name (<UTC yyyymmddThhmmssZ>...); zero when it has none
	Seeds    []uint64  // the root seed, then any other seed a scenario ran with
	Tier     string
	Verdict  string // the session verdict; "" when none was recorded
	Headline string
	Units    []UnitInfo
	// Results is results.json when it could be read.
	Results *Results
	// Problems names each file that is there but could not be read, so a
	// page says why a part is missing instead of silently leaving it out.
	Problems []string
}

// UnitInfo is one scenario, arm or replayed or reduced scenario of a session.
type UnitInfo struct {
	ID       string
	Verdict  string // "" when the run stopped before deciding it
	Reason   string
	Artifact string // its artifact directory relative to the session, "" when none
}

// Files a session directory may hold, any of which marks it as a session.
var sessionMarkers = []string{"results.json", "replay.json", "reduce.json", "session-log.md"}

// IsSessionDir reports whether dir holds any of the files a faultline
// session writes (results.json, replay.json, reduce.json, session-log.md).
func IsSessionDir(dir string) bool {
	for _, m := range sessionMarkers {
		if st, err := os.Stat(filepath.Join(dir, m)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// sessionTime is the UTC start time a session directory is named after.
var sessionTime = regexp.MustCompile(`^(\d{8}T\d{6}Z)`)

// ReadSessionInfo reads what dir holds about its session: results.json,
// else replay.json or reduce.json, else session-log.md's header and the
// findings/*.md files. It never fails; what it could not read is in
// Problems.
func ReadSessionInfo(dir string) SessionInfo {
	info := SessionInfo{Dir: dir}
	if m := sessionTime.FindStringSubmatch(filepath.Base(dir)); m != nil {
		if t, err := time.Parse("20060102T150405Z", m[1]); err == nil {
			info.Started = t
		}
	}
	info.readLogHeader()
	switch {
	case info.readResults():
	case info.readReplay():
	case info.readReduce():
	default:
		info.readFindingUnits()
	}
	if info.Kind == "" {
		switch base := filepath.Base(dir); {
		case strings.Contains(base, "-replay"):
			info.Kind = "replay"
		case strings.Contains(base, "-reduce"):
			info.Kind = "reduce"
		}
	}
	info.addArtifactUnits()
	return info
}

// readJSON decodes dir/name into v; false when the file is absent, and a
// problem noted when it is there but unreadable.
func (s *SessionInfo) readJSON(name string, v any) bool {
	b, err := os.ReadFile(filepath.Join(s.Dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		s.Problems = append(s.Problems, fmt.Sprintf("%s: %v", name, err))
		return false
	}
	return true
}

func (s *SessionInfo) readResults() bool {
	var r Results
	if !s.readJSON("results.json", &r) {
		return false
	}
	s.Results = &r
	s.Kind, s.Tier, s.Verdict, s.Headline = r.Kind, r.Tier, string(r.SessionVerdict), r.Headline
	s.Source = r.Plan
	if r.Script != "" {
		s.Source = r.Script
	}
	s.Seeds = []uint64{r.Seed}
	// A script's scenarios may run other seeds (seeds = N); they are in
	// its scenarios' entries.
	if list, ok := r.Scenarios.([]any); ok {
		for _, e := range list {
			m, _ := e.(map[string]any)
			if f, ok := m["seed"].(float64); ok && f >= 0 && !slices.Contains(s.Seeds, uint64(f)) {
				s.Seeds = append(s.Seeds, uint64(f))
			}
		}
	}
	for _, u := range r.Units {
		s.Units = append(s.Units, UnitInfo{ID: u.ID, Verdict: string(u.Verdict), Reason: u.Reason, Artifact: strings.TrimSuffix(u.Artifact, "/")})
	}
	return true
}

// readReplay reads replay.json (session.Replay's record; its fields are
// read by name here, since session imports report).
func (s *SessionInfo) readReplay() bool {
	var r struct {
		ReplayOf  string `json:"replay_of"`
		Scenarios []struct {
			Scenario   string `json:"scenario"`
			Replay     string `json:"replay"`
			Reproduced string `json:"reproduced"`
			Summary    string `json:"summary"`
		} `json:"scenarios"`
	}
	if !s.readJSON("replay.json", &r) {
		return false
	}
	s.Kind, s.Source = "replay", r.ReplayOf
	for _, sc := range r.Scenarios {
		s.Units = append(s.Units, UnitInfo{ID: sc.Scenario, Verdict: "reproduced: " + sc.Reproduced, Reason: sc.Summary,
			Artifact: path.Join("artifacts", unitFileName(sc.Scenario))})
	}
	return true
}

// readReduce reads reduce.json (session.Reduction).
func (s *SessionInfo) readReduce() bool {
	var r struct {
		ReduceOf      string `json:"reduce_of"`
		Scenario      string `json:"scenario"`
		HistoryShrink string `json:"history_shrink"`
		EventsBefore  int    `json:"events_before"`
		EventsAfter   int    `json:"events_after"`
		Reproduced    int    `json:"reproduced"`
		Of            int    `json:"of"`
	}
	if !s.readJSON("reduce.json", &r) {
		return false
	}
	s.Kind, s.Source = "reduce", r.ReduceOf
	why := fmt.Sprintf("schedule %d → %d events; the minimal schedule failed in %d of %d replays", r.EventsBefore, r.EventsAfter, r.Reproduced, r.Of)
	if r.HistoryShrink != "" {
		why += "; history: " + r.HistoryShrink
	}
	s.Units = append(s.Units, UnitInfo{ID: r.Scenario, Verdict: "reduced", Reason: why, Artifact: path.Join("artifacts", unitFileName(r.Scenario))})
	return true
}

// logField is one "**Name:** value" line of session-log.md's header.
var logField = regexp.MustCompile(`^\*\*([A-Za-z ]+):\*\* (.*)$`)

// readLogHeader fills what results.json would say from session-log.md, the
// first file a session writes, so a killed run still has a header.
func (s *SessionInfo) readLogHeader() {
	f, err := os.Open(filepath.Join(s.Dir, "session-log.md"))
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for n := 0; sc.Scan() && n < 30; n++ {
		m := logField.FindStringSubmatch(sc.Text())
		if m == nil || m[2] == "(unknown)" {
			continue
		}
		switch m[1] {
		case "Plan":
			s.Source = m[2]
		case "Tier":
			s.Tier = m[2]
		case "Seed":
			if v, err := strconv.ParseUint(m[2], 10, 64); err == nil {
				s.Seeds = []uint64{v}
			}
		}
	}
}

// findingTitle is findings/<unit>.md's first line, "# S1: FAIL-reproducible".
var findingTitle = regexp.MustCompile(`^# (.+): (\S+)\s*$`)

// readFindingUnits lists the units of a session without results.json (a
// run killed after some scenarios finished) from their findings files.
func (s *SessionInfo) readFindingUnits() {
	names, _ := filepath.Glob(filepath.Join(s.Dir, "findings", "*.md"))
	sort.Strings(names)
	for _, n := range names {
		if filepath.Base(n) == "report.md" {
			continue
		}
		u := UnitInfo{ID: strings.TrimSuffix(filepath.Base(n), ".md")}
		if f, err := os.Open(n); err == nil {
			sc := bufio.NewScanner(io.LimitReader(f, 4096))
			if sc.Scan() {
				if m := findingTitle.FindStringSubmatch(sc.Text()); m != nil {
					u.ID, u.Verdict = m[1], m[2]
				}
			}
			f.Close()
		}
		u.Artifact = path.Join("artifacts", unitFileName(u.ID))
		s.Units = append(s.Units, u)
	}
}

// rerunDir is a re-run's artifact directory, "<unit>-rerun<N>".
var rerunDir = regexp.MustCompile(`^(.+)-rerun\d+$`)

// addArtifactUnits adds every artifact directory with a history that no
// unit claims: a scenario the run was killed in before its verdict.
func (s *SessionInfo) addArtifactUnits() {
	entries, err := os.ReadDir(filepath.Join(s.Dir, "artifacts"))
	if err != nil {
		return
	}
	claimed := map[string]bool{}
	for _, u := range s.Units {
		claimed[path.Base(u.Artifact)] = true
		claimed[unitFileName(u.ID)] = true
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || claimed[name] {
			continue
		}
		if m := rerunDir.FindStringSubmatch(name); m != nil && claimed[m[1]] {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.Dir, "artifacts", name, "history.jsonl")); err != nil {
			continue
		}
		s.Units = append(s.Units, UnitInfo{ID: name, Artifact: path.Join("artifacts", name)})
	}
}

// unitFileName is the file and directory name of a unit: an arm's "/"
// folded to "_" as plans.ScenarioName does.
func unitFileName(id string) string { return strings.ReplaceAll(id, "/", "_") }

var unsafeAnchor = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// UnitAnchor is the id of a unit's section in index.html: "unit-S1",
// "unit-S5_api" for the arm S5/api.
func UnitAnchor(id string) string { return "unit-" + unsafeAnchor.ReplaceAllString(id, "_") }

// IndexOptions changes what RenderIndexWith links to.
type IndexOptions struct {
	// HistoryLink, when set, gives an extra link for each unit's history
	// (its path relative to the session): `faultline serve`'s browser.
	HistoryLink func(rel string) string
	// Title prefixes the page's <title>.
	Title string
}

// WriteIndex writes dir/index.html, a page a person opens in a browser:
// the session's verdicts, findings, plots, timelines, checker output and
// every file, in one file that links only within the directory. It is
// written atomically, so a reader never sees half a page.
func WriteIndex(dir string) error {
	var b bytes.Buffer
	if err := RenderIndex(&b, dir); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, IndexFile), b.Bytes())
}

// RenderIndex renders the index.html of session directory dir to w. What
// the directory lacks is left out (and said); it fails only when dir is no
// readable directory or w fails.
func RenderIndex(w io.Writer, dir string) error {
	return RenderIndexWith(w, dir, IndexOptions{})
}

// RenderIndexWith is RenderIndex with options.
func RenderIndexWith(w io.Writer, dir string, o IndexOptions) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("index of %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("index of %s: not a directory", dir)
	}
	p := buildPage(dir, o)
	if err := indexTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("index of %s: %w", dir, err)
	}
	return nil
}

// indexPage is what the template renders.
type indexPage struct {
	Title    string
	Info     SessionInfo
	Started  string
	Seeds    string
	Units    []indexUnit
	Report   template.HTML
	Notes    []string
	Files    []indexFile
	MoreFile int
}

type indexUnit struct {
	UnitInfo
	Anchor    string
	Class     string // verdict class for colour: pass, fail, inconclusive, other
	Findings  template.HTML
	Plot      template.HTML // the inlined plot.svg, or an <img> of it
	PlotLink  string
	Timelines []string
	Porcupine string
	Graphs    []indexGraph
	Dots      []string
	Texts     []indexText
	History   string
	Browse    string
	Reruns    []string
}

type indexGraph struct {
	Name string
	SVG  template.HTML
}

type indexText struct {
	Name, Link, Text string
	Cut              bool
}

type indexFile struct {
	Path, Link, Size string
}

func buildPage(dir string, o IndexOptions) indexPage {
	info := ReadSessionInfo(dir)
	p := indexPage{Info: info, Notes: append([]string(nil), info.Problems...)}
	p.Title = "faultline session " + filepath.Base(dir)
	if o.Title != "" {
		p.Title = o.Title + ": " + p.Title
	}
	if !info.Started.IsZero() {
		p.Started = info.Started.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	seeds := make([]string, len(info.Seeds))
	for i, s := range info.Seeds {
		seeds[i] = strconv.FormatUint(s, 10)
	}
	p.Seeds = strings.Join(seeds, ", ")
	if info.Results == nil && info.Kind != "replay" && info.Kind != "reduce" {
		p.Notes = append(p.Notes, "results.json is missing: the run did not finish (killed, or still running); what it wrote so far is below")
	}
	// The report's images of the plots are left out: each plot is
	// inlined in its unit's section already.
	var plots []string
	for i, u := range info.Units {
		iu := buildUnit(dir, u, i, o, &p.Notes)
		if iu.PlotLink != "" {
			plots = append(plots, iu.PlotLink)
		}
		p.Units = append(p.Units, iu)
	}
	if b, err := readCapped(filepath.Join(dir, "findings", "report.md"), maxMarkdown); err == nil {
		h, err := renderMarkdown(b, "findings", plots...)
		if err != nil {
			p.Notes = append(p.Notes, "findings/report.md: "+err.Error())
		}
		p.Report = h
	}
	p.Files, p.MoreFile = listFiles(dir)
	return p
}

func buildUnit(dir string, u UnitInfo, n int, o IndexOptions, notes *[]string) indexUnit {
	iu := indexUnit{UnitInfo: u, Anchor: UnitAnchor(u.ID), Class: verdictClass(u.Verdict)}
	art := u.Artifact
	if art == "" {
		art = path.Join("artifacts", unitFileName(u.ID))
	}
	artDir := filepath.Join(dir, filepath.FromSlash(art))
	if st, err := os.Stat(artDir); err != nil || !st.IsDir() {
		art = ""
	}
	var plot []string
	if art != "" {
		plot = []string{relLink(path.Join(art, "plot.svg"))}
	}
	if b, err := readCapped(filepath.Join(dir, "findings", unitFileName(u.ID)+".md"), maxMarkdown); err == nil {
		h, err := renderMarkdown(b, "findings", plot...)
		if err != nil {
			*notes = append(*notes, "findings/"+unitFileName(u.ID)+".md: "+err.Error())
		}
		iu.Findings = h
	}
	if art == "" {
		iu.Artifact = ""
		return iu
	}
	iu.Artifact = art
	prefix := fmt.Sprintf("u%d-", n)
	if b, err := os.ReadFile(filepath.Join(artDir, "plot.svg")); err == nil {
		iu.Plot, iu.PlotLink = embedSVG(b, path.Join(art, "plot.svg"), prefix+"plot-"), relLink(path.Join(art, "plot.svg"))
	}
	timelines, _ := filepath.Glob(filepath.Join(artDir, "timeline*.html"))
	sort.Strings(timelines)
	for _, t := range timelines {
		iu.Timelines = append(iu.Timelines, relLink(path.Join(art, filepath.Base(t))))
	}
	if fileExists(filepath.Join(artDir, "linearizability.html")) {
		iu.Porcupine = relLink(path.Join(art, "linearizability.html"))
	}
	if fileExists(filepath.Join(artDir, "history.jsonl")) {
		rel := path.Join(art, "history.jsonl")
		iu.History = relLink(rel)
		if o.HistoryLink != nil {
			iu.Browse = o.HistoryLink(rel)
		}
	}
	graphs(dir, art, prefix, &iu)
	for _, name := range []string{"checker.txt", "explanations.txt"} {
		if t, ok := readText(dir, path.Join(art, name)); ok {
			iu.Texts = append(iu.Texts, t)
		}
	}
	reruns, _ := filepath.Glob(filepath.Join(filepath.Dir(artDir), filepath.Base(artDir)+"-rerun*"))
	sort.Slice(reruns, func(i, j int) bool { return naturalLess(reruns[i], reruns[j]) })
	for _, r := range reruns {
		if rerunDir.MatchString(filepath.Base(r)) {
			iu.Reruns = append(iu.Reruns, relLink(path.Dir(art)+"/"+filepath.Base(r)+"/"))
		}
	}
	return iu
}

// graphs finds the cycle graphs under a unit's artifact directory: every
// SVG but the plot and the timeline, and each .dot that has no SVG.
func graphs(dir, art, prefix string, iu *indexUnit) {
	root := filepath.Join(dir, filepath.FromSlash(art))
	var svgs, dots []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(p, ".svg") && rel != path.Join(art, "plot.svg"):
			svgs = append(svgs, rel)
		case strings.HasSuffix(p, ".dot"):
			dots = append(dots, rel)
		}
		return nil
	})
	sort.Slice(svgs, func(i, j int) bool { return naturalLess(svgs[i], svgs[j]) })
	sort.Slice(dots, func(i, j int) bool { return naturalLess(dots[i], dots[j]) })
	for i, s := range svgs {
		b, err := readCapped(filepath.Join(dir, filepath.FromSlash(s)), maxInlineSVG+1)
		if err != nil {
			continue
		}
		iu.Graphs = append(iu.Graphs, indexGraph{Name: s, SVG: embedSVG(b, s, fmt.Sprintf("%sg%d-", prefix, i))})
	}
	for _, d := range dots {
		if !slices.Contains(svgs, strings.TrimSuffix(d, ".dot")+".svg") {
			iu.Dots = append(iu.Dots, relLink(d))
		}
	}
}

// readText reads a text artifact for a <pre>, cut at maxInlineText.
func readText(dir, rel string) (indexText, bool) {
	b, err := readCapped(filepath.Join(dir, filepath.FromSlash(rel)), maxInlineText+1)
	if err != nil {
		return indexText{}, false
	}
	t := indexText{Name: rel, Link: relLink(rel)}
	if len(b) > maxInlineText {
		b, t.Cut = b[:maxInlineText], true
	}
	t.Text = strings.ToValidUTF8(string(b), "\uFFFD")
	return t, true
}

// readCapped reads at most n bytes of a regular file.
func readCapped(name string, n int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	return io.ReadAll(io.LimitReader(f, n))
}

func fileExists(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// naturalLess orders "S1-rerun2" before "S1-rerun10".
func naturalLess(a, b string) bool {
	if len(a) != len(b) && strings.TrimRight(a, "0123456789/") == strings.TrimRight(b, "0123456789/") {
		return len(a) < len(b)
	}
	return a < b
}

// verdictClass picks the colour a verdict is drawn in.
func verdictClass(v string) string {
	switch {
	case strings.HasPrefix(v, "PASS"), v == "DONE", strings.HasPrefix(v, "reproduced: no"):
		return "pass"
	case strings.HasPrefix(v, "FAIL"), strings.HasPrefix(v, "reproduced: yes"), v == "BLOCKED":
		return "fail"
	case strings.HasPrefix(v, "INCONCLUSIVE"), strings.HasPrefix(v, "PARTIAL"), v == "DONE_WITH_CONCERNS":
		return "inconclusive"
	}
	return "other"
}

// relLink is a link to a session-relative path from the session's root:
// each segment escaped, and "./" in front when the first segment has a
// colon, so a file name never reads as a URL scheme.
func relLink(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	out := strings.Join(segs, "/")
	if first, _, _ := strings.Cut(rel, "/"); strings.Contains(first, ":") {
		out = "./" + out
	}
	return out
}

// listFiles lists every regular file and symlink under dir (index.html and
// temporary files aside), in path order, up to maxListedFiles.
func listFiles(dir string) ([]indexFile, int) {
	var out []indexFile
	more := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == IndexFile || strings.HasSuffix(rel, ".tmp") {
			return nil
		}
		if len(out) >= maxListedFiles {
			more++
			return nil
		}
		size := "symlink"
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size = bytesize.Format(uint64(fi.Size()))
			}
		}
		out = append(out, indexFile{Path: rel, Link: relLink(rel), Size: size})
		return nil
	})
	return out, more
}

// SVG inlining. An SVG is inlined only when it can carry no script (no
// <script>, no event attribute, no javascript: URL, no foreignObject, no
// animation, no link but to a fragment) nor style the page (no <style>);
// otherwise, and when it is too big, it is shown as <img>, which never runs
// scripts. Its ids are prefixed so that two inlined SVGs (a plot and a cycle
// graph, two units' plots) never resolve each other's url(#id).
var (
	svgStart   = regexp.MustCompile(`(?i)<svg[\s>]`)
	svgUnsafe  = regexp.MustCompile(`(?i)<script|<foreignobject|<iframe|<embed|<object|<animate|<set[\s/>]|<style|javascript:|\son[a-z]+\s*=|<!entity|href\s*=\s*["']?\s*[^"'#\s]`)
	svgID      = regexp.MustCompile(`(\s)id="([^"]*)"`)
	svgURLRef  = regexp.MustCompile(`url\(#([^)\s]+)\)`)
	svgHrefRef = regexp.MustCompile(`(href)="#([^"]*)"`)
)

func embedSVG(b []byte, rel, prefix string) template.HTML {
	img := template.HTML(fmt.Sprintf(`<img src="%s" alt="%s">`, html.EscapeString(relLink(rel)), html.EscapeString(rel)))
	loc := svgStart.FindIndex(b)
	if loc == nil || len(b) > maxInlineSVG || svgUnsafe.Match(b) {
		return img
	}
	s := string(b[loc[0]:])
	s = svgID.ReplaceAllString(s, `${1}id="`+prefix+`${2}"`)
	s = svgURLRef.ReplaceAllString(s, `url(#`+prefix+`${1})`)
	s = svgHrefRef.ReplaceAllString(s, `${1}="#`+prefix+`${2}"`)
	return template.HTML(strings.ToValidUTF8(s, "\uFFFD")) //nolint:gosec // checked above: no script can run in it
}

// Markdown. The findings are rendered with GitHub's flavour (tables, task
// lists); raw HTML in them is shown as text, never passed through; links
// written relative to findings/ are made relative to the session; headings
// move down two levels under the page's own; and the unit's plot image,
// inlined beside it, is not shown twice.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(escapeRawHTML{}, 100))),
)

// renderMarkdown renders src, a file in the session directory's subdir
// from, dropping the images of skipImages (links from the session's root:
// the plots inlined beside it).
func renderMarkdown(src []byte, from string, skipImages ...string) (template.HTML, error) {
	src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	doc := markdown.Parser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext()))
	var drop []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Heading:
			v.Level = min(v.Level+2, 6)
		case *ast.Link:
			v.Destination = []byte(rebase(string(v.Destination), from))
		case *ast.Image:
			v.Destination = []byte(rebase(string(v.Destination), from))
			if slices.Contains(skipImages, string(v.Destination)) {
				drop = append(drop, v)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range drop {
		parent := n.Parent()
		parent.RemoveChild(parent, n)
		if parent.Kind() == ast.KindParagraph && parent.ChildCount() == 0 && parent.Parent() != nil {
			parent.Parent().RemoveChild(parent.Parent(), parent)
		}
	}
	var b bytes.Buffer
	if err := markdown.Renderer().Render(&b, src, doc); err != nil {
		return template.HTML(""), fmt.Errorf("render markdown: %w", err)
	}
	return template.HTML(b.String()), nil //nolint:gosec // goldmark escapes text and, with escapeRawHTML, raw HTML
}

// rebase turns a link relative to the session's subdirectory from into one
// relative to the session; absolute URLs, fragments and rooted paths stay.
func rebase(dest, from string) string {
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(u.Path, "/") || u.Path == "" {
		return dest
	}
	trailing := strings.HasSuffix(u.Path, "/")
	p := path.Clean(path.Join(from, u.Path))
	if trailing && p != "." {
		p += "/"
	}
	out := relLink(p)
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		out += "#" + url.PathEscape(u.Fragment)
	}
	return out
}

// escapeRawHTML renders raw HTML in Markdown as the text it is.
type escapeRawHTML struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (escapeRawHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segs := n.(*ast.RawHTML).Segments
			for i := range segs.Len() {
				seg := segs.At(i)
				_, _ = w.WriteString(html.EscapeString(string(seg.Value(src))))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		b := n.(*ast.HTMLBlock)
		if entering {
			_, _ = w.WriteString("<pre class=\"raw-html\">")
			lines := b.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				_, _ = w.WriteString(html.EscapeString(string(seg.Value(src))))
			}
			if b.HasClosure() {
				_, _ = w.WriteString(html.EscapeString(string(b.ClosureLine.Value(src))))
			}
			_, _ = w.WriteString("</pre>\n")
		}
		return ast.WalkSkipChildren, nil
	})
}

var indexTemplate = template.Must(template.New("index").Funcs(template.FuncMap{"verdictClass": verdictClass}).Parse(indexHTML))

// IndexCSS is the stylesheet of index.html, shared with `faultline serve`'s
// pages so they look alike.
const IndexCSS = `body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 48px;color:#212529;line-height:1.45}
h1{font-size:1.5em;margin:16px 0 4px}h2{border-bottom:1px solid #dee2e6;padding-bottom:4px;margin-top:32px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #dee2e6;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f5}code,pre{font-family:ui-monospace,monospace;font-size:.9em}
pre{background:#f8f9fa;border:1px solid #dee2e6;padding:8px;overflow:auto;max-height:480px}
.verdict{font-weight:bold;padding:1px 6px;border-radius:3px;white-space:nowrap}
.pass{background:#d3f9d8;color:#2b8a3e}.fail{background:#ffe3e3;color:#c92a2a}
.inconclusive{background:#fff3bf;color:#e67700}.other{background:#e9ecef;color:#495057}
.headline{font-size:1.1em;margin:8px 0}.meta td:first-child{font-weight:bold}
.plot svg,.graph svg,.plot img,.graph img{max-width:100%;height:auto}
iframe.timeline{width:100%;height:520px;border:1px solid #dee2e6}
.note{background:#fff9db;border-left:4px solid #fab005;padding:4px 8px}
.unit{border-top:2px solid #adb5bd;margin-top:32px}.links a{margin-right:12px}
.files td:last-child{text-align:right;white-space:nowrap}.findings table{font-size:.9em}`

const indexHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
` + IndexCSS + `
</style>
</head>
<body>
<header>
<h1>{{with .Info.Source}}{{.}}{{else}}faultline session{{end}}</h1>
<table class="meta">
<tr><td>Kind</td><td>{{with .Info.Kind}}{{.}}{{else}}unknown{{end}}</td></tr>
<tr><td>Started</td><td>{{with .Started}}{{.}}{{else}}unknown{{end}}</td></tr>
<tr><td>Seed</td><td>{{with .Seeds}}{{.}}{{else}}unknown{{end}}</td></tr>
<tr><td>Tier</td><td>{{with .Info.Tier}}{{.}}{{else}}unknown{{end}}</td></tr>
<tr><td>Session verdict</td><td>{{with .Info.Verdict}}<span id="session-verdict" class="verdict {{verdictClass .}}">{{.}}</span>{{else}}none recorded{{end}}</td></tr>
</table>
{{with .Info.Headline}}<p class="headline">{{.}}</p>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}</header>

<h2>Verdicts</h2>
<table id="verdict">
<tr><th>Unit</th><th>Verdict</th><th>Why</th></tr>
{{range .Units}}<tr><td><a href="#{{.Anchor}}">{{.ID}}</a></td><td><span class="verdict {{.Class}}">{{with .Verdict}}{{.}}{{else}}no verdict{{end}}</span></td><td>{{with .Reason}}{{.}}{{else}}{{if not .Verdict}}the run stopped before deciding it{{end}}{{end}}</td></tr>
{{else}}<tr><td colspan="3">no units recorded</td></tr>
{{end}}</table>

{{range .Units}}<section class="unit" id="{{.Anchor}}">
<h2>{{.ID}} <span class="verdict {{.Class}}">{{with .Verdict}}{{.}}{{else}}no verdict{{end}}</span></h2>
<p class="links">{{with .Artifact}}<a href="{{.}}/">artifacts</a>{{end}}{{with .History}}<a href="{{.}}">history.jsonl</a>{{end}}{{with .Browse}}<a href="{{.}}">browse the history</a>{{end}}{{with .Porcupine}}<a class="porcupine" href="{{.}}">porcupine's view (linearizability.html)</a>{{end}}{{range .Timelines}}<a href="{{.}}">timeline</a>{{end}}{{range .Reruns}}<a href="{{.}}">re-run {{.}}</a>{{end}}</p>
{{with .Plot}}<h3>Plot</h3>
<div class="plot">{{.}}</div>
{{end}}{{with .PlotLink}}<p class="links"><a href="{{.}}">plot.svg</a></p>
{{end}}{{range .Timelines}}<h3>Timeline</h3>
<p class="links"><a href="{{.}}">open the timeline</a></p>
<iframe class="timeline" src="{{.}}" title="timeline"></iframe>
{{end}}{{with .Graphs}}<h3>Cycle graphs</h3>
{{range .}}<figure class="graph">{{.SVG}}<figcaption>{{.Name}}</figcaption></figure>
{{end}}{{end}}{{with .Dots}}<h3>Cycle graphs (DOT, not rendered)</h3>
<ul>{{range .}}<li><a href="{{.}}">{{.}}</a></li>{{end}}</ul>
{{end}}{{range .Texts}}<h3>{{.Name}}</h3>
<pre class="checker">{{.Text}}</pre>
{{if .Cut}}<p class="note">cut at 256 KiB: <a href="{{.Link}}">the whole file</a></p>{{end}}
{{end}}{{with .Findings}}<div class="findings">
{{.}}</div>
{{end}}</section>
{{end}}
{{with .Report}}<section id="report">
<h2>Report</h2>
<div class="findings">
{{.}}</div>
</section>
{{end}}
<section id="files">
<h2>Files</h2>
<table class="files">
<tr><th>File</th><th>Size</th></tr>
{{range .Files}}<tr><td><a href="{{.Link}}">{{.Path}}</a></td><td>{{.Size}}</td></tr>
{{end}}</table>
{{with .MoreFile}}<p class="note">and {{.}} more files, not listed</p>{{end}}
</section>
</body>
</html>
`
