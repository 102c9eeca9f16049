// Package serve is `faultline serve`: a local web server over a directory of
// sessions. It lists every session (most recent first, filterable by
// verdict), renders each session's index page on the fly, serves the
// session's files, and browses a history page by page. Everything it serves
// comes from under its root: a path with ".." or a symlink leading out of
// the root is refused.
package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/report"
)

// URL prefixes of the server's pages. "/" lists the sessions.
const (
	sessionPrefix = "/session/"
	historyPrefix = "/history/"
)

// maxDepth is how deep under the root sessions are looked for:
// <root>/<slug>/<time>/ is depth 2, and a root of several runs' --out
// directories adds a level or two.
const maxDepth = 4

// History browser paging: the default and largest page.
const (
	defaultPer = 200
	maxPer     = 5000
)

// pageCSP is the Content-Security-Policy of the pages the server renders:
// they need no script, so none may run in them.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; form-action 'self'; base-uri 'none'"

// New returns the handler serving the sessions under root.
func New(root string) http.Handler { return &server{root: root} }

type server struct{ root string }

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	switch {
	case p == "/":
		s.list(w, r)
	case p+"/" == sessionPrefix:
		http.Redirect(w, r, sessionPrefix, http.StatusMovedPermanently)
	case strings.HasPrefix(p, sessionPrefix):
		s.session(w, r, strings.TrimPrefix(p, sessionPrefix))
	case strings.HasPrefix(p, historyPrefix):
		s.history(w, r, strings.TrimPrefix(p, historyPrefix))
	default:
		http.NotFound(w, r)
	}
}

// errForbidden is a path that leads out of the root.
var errForbidden = errors.New("outside the served directory")

// resolve maps a slash-separated path relative to the root to a file or
// directory under it, following symlinks only as far as they stay inside.
func (s *server) resolve(rel string) (string, error) {
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." || strings.ContainsRune(seg, 0) {
			return "", errForbidden
		}
	}
	root, err := filepath.EvalSymlinks(s.root)
	if err != nil {
		return "", fmt.Errorf("served directory %s: %w", s.root, err)
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("served directory %s: %w", s.root, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "", err
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", err
	}
	if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return "", errForbidden
	}
	return real, nil
}

// fail answers a failed resolve: 403 for an escape, 404 otherwise.
func fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errForbidden) {
		http.Error(w, "403 forbidden: "+err.Error(), http.StatusForbidden)
		return
	}
	http.NotFound(w, r)
}

// session serves /session/<rel>: a session directory's index, any other
// directory's listing, or a file.
func (s *server) session(w http.ResponseWriter, r *http.Request, rel string) {
	real, err := s.resolve(strings.TrimSuffix(rel, "/"))
	if err != nil {
		fail(w, r, err)
		return
	}
	st, err := os.Stat(real)
	if err != nil {
		fail(w, r, err)
		return
	}
	if !st.IsDir() {
		serveFile(w, r, real, st)
		return
	}
	// A directory's page has relative links: they resolve only under a
	// trailing slash.
	if rel != "" && !strings.HasSuffix(rel, "/") {
		http.Redirect(w, r, r.URL.Path+"/", http.StatusMovedPermanently)
		return
	}
	rel = strings.TrimSuffix(rel, "/")
	if report.IsSessionDir(real) {
		var b bytes.Buffer
		opts := report.IndexOptions{Title: "faultline serve", HistoryLink: func(h string) string {
			return historyPrefix + escapePath(path.Join(rel, h))
		}}
		if err := report.RenderIndexWith(&b, real, opts); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		// One link back to the list, after <body>: the page itself stays
		// what index.html is.
		page := bytes.Replace(b.Bytes(), []byte("<body>\n"), []byte("<body>\n<p><a href=\"/\">all sessions</a></p>\n"), 1)
		writePage(w, page)
		return
	}
	s.dirListing(w, real, rel)
}

// serveFile serves one file with the content type its name says.
func serveFile(w http.ResponseWriter, r *http.Request, name string, st fs.FileInfo) {
	if !st.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	f, err := os.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", ContentType(name))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, filepath.Base(name), st.ModTime(), f)
}

// textTypes are the session files shown as text whatever the system's
// MIME table says (.md would be text/markdown, which browsers download).
var textTypes = map[string]bool{".jsonl": true, ".md": true, ".txt": true, ".star": true, ".log": true, ".dot": true,
	".edn": true, ".csv": true, ".tmp": true, ".out": true, ".err": true}

// ContentType is the Content-Type a session file is served with.
func ContentType(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case ext == ".svg":
		return "image/svg+xml"
	case ext == ".html" || ext == ".htm":
		return "text/html; charset=utf-8"
	case ext == ".json":
		return "application/json"
	case textTypes[ext], ext == "":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

func writePage(w http.ResponseWriter, page []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(page)
}

func render(w http.ResponseWriter, t *template.Template, data any) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writePage(w, b.Bytes())
}

// escapePath escapes each segment of a slash-separated path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// Session listing.

// Listed is one session of the list.
type Listed struct {
	Rel     string    // its path under the root, slash-separated
	Started time.Time // from its name, else its directory's modification time
	Info    report.SessionInfo
}

// Verdict is the session verdict the list shows and filters by: "none"
// when the session recorded none (a replay, a reduction, a killed run).
func (l Listed) Verdict() string {
	if l.Info.Verdict == "" {
		return "none"
	}
	return l.Info.Verdict
}

// Sessions finds every session under root, at most maxDepth directories
// down, most recent first (ties in path order, later first).
func Sessions(root string) ([]Listed, error) {
	var out []Listed
	var walk func(dir, rel string, depth int) error
	walk = func(dir, rel string, depth int) error {
		if report.IsSessionDir(dir) {
			l := Listed{Rel: rel, Info: report.ReadSessionInfo(dir), Started: time.Time{}}
			l.Started = l.Info.Started
			if l.Started.IsZero() {
				if st, err := os.Stat(dir); err == nil {
					l.Started = st.ModTime().UTC()
				}
			}
			out = append(out, l)
			return nil
		}
		if depth == maxDepth {
			return nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			if depth == 0 {
				return fmt.Errorf("list sessions under %s: %w", root, err)
			}
			return nil
		}
		for _, e := range entries {
			// Symlinked directories are not followed: one could lead out.
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				if err := walk(filepath.Join(dir, e.Name()), path.Join(rel, e.Name()), depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root, "", 0); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.After(out[j].Started)
		}
		return out[i].Rel > out[j].Rel
	})
	return out, nil
}

type listPage struct {
	Root     string
	Filter   string
	Total    int
	Counts   []verdictCount
	Sessions []listRow
	CSS      template.CSS
}

type verdictCount struct {
	Verdict, Link, Class string
	N                    int
	Current              bool
}

type listRow struct {
	Listed
	Link, Started, Seeds, Class string
	Units                       []report.UnitInfo
}

func (s *server) list(w http.ResponseWriter, r *http.Request) {
	all, err := Sessions(s.root)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	filter := r.URL.Query().Get("verdict")
	p := listPage{Root: s.root, Filter: filter, Total: len(all), CSS: template.CSS(report.IndexCSS)}
	counts := map[string]int{}
	for _, l := range all {
		counts[l.Verdict()]++
		if filter != "" && l.Verdict() != filter {
			continue
		}
		row := listRow{Listed: l, Link: sessionPrefix + escapePath(l.Rel), Started: l.Started.Format("2006-01-02 15:04:05 UTC"),
			Class: classOf(l.Verdict()), Units: l.Info.Units}
		if l.Rel != "" {
			row.Link += "/"
		}
		seeds := make([]string, len(l.Info.Seeds))
		for i, sd := range l.Info.Seeds {
			seeds[i] = strconv.FormatUint(sd, 10)
		}
		row.Seeds = strings.Join(seeds, ", ")
		p.Sessions = append(p.Sessions, row)
	}
	verdicts := make([]string, 0, len(counts))
	for v := range counts {
		verdicts = append(verdicts, v)
	}
	sort.Strings(verdicts)
	for _, v := range verdicts {
		p.Counts = append(p.Counts, verdictCount{Verdict: v, N: counts[v], Link: "/?verdict=" + url.QueryEscape(v), Class: classOf(v), Current: v == filter})
	}
	render(w, listTemplate, p)
}

// classOf is the colour class of a verdict, as index.html's.
func classOf(v string) string {
	switch {
	case strings.HasPrefix(v, "PASS"), v == "DONE":
		return "pass"
	case strings.HasPrefix(v, "FAIL"), v == "BLOCKED", strings.HasPrefix(v, "reproduced: yes"):
		return "fail"
	case strings.HasPrefix(v, "INCONCLUSIVE"), strings.HasPrefix(v, "PARTIAL"), v == "DONE_WITH_CONCERNS":
		return "inconclusive"
	}
	return "other"
}

var listTemplate = template.Must(template.New("list").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>faultline sessions</title><style>{{.CSS}}
.filters a{margin-right:10px}.filters .current{font-weight:bold;text-decoration:none}</style></head>
<body>
<h1>faultline sessions under {{.Root}}</h1>
<p class="filters" id="filters">{{if .Filter}}<a href="/">all ({{.Total}})</a>{{else}}<a class="current" href="/">all ({{.Total}})</a>{{end}}{{range .Counts}}<a class="verdict {{.Class}}{{if .Current}} current{{end}}" href="{{.Link}}">{{.Verdict}} ({{.N}})</a>{{end}}</p>
<table id="sessions">
<tr><th>Started</th><th>Plan or script</th><th>Kind</th><th>Tier</th><th>Seeds</th><th>Verdict</th><th>Units</th><th>Session</th></tr>
{{range .Sessions}}<tr class="session"><td>{{.Started}}</td><td>{{.Info.Source}}</td><td>{{.Info.Kind}}</td><td>{{.Info.Tier}}</td><td>{{.Seeds}}</td><td><span class="verdict {{.Class}}">{{.Verdict}}</span></td><td>{{range .Units}}<div>{{.ID}}: {{with .Verdict}}{{.}}{{else}}no verdict{{end}}</div>{{end}}</td><td><a href="{{.Link}}">{{with .Rel}}{{.}}{{else}}.{{end}}</a></td></tr>
{{else}}<tr><td colspan="8">no sessions{{with .Filter}} with verdict {{.}}{{end}}</td></tr>
{{end}}</table>
</body>
</html>
`))

// Directory listing of a directory inside a session (artifacts/S1/...).

type dirPage struct {
	Rel     string
	Up      string
	Entries []dirEntry
	CSS     template.CSS
}

type dirEntry struct{ Name, Link, Size string }

func (s *server) dirListing(w http.ResponseWriter, real, rel string) {
	entries, err := os.ReadDir(real)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	p := dirPage{Rel: rel, CSS: template.CSS(report.IndexCSS), Up: "../"}
	if rel == "" {
		p.Up = "/"
	}
	for _, e := range entries {
		d := dirEntry{Name: e.Name(), Link: "./" + url.PathEscape(e.Name())}
		if e.IsDir() {
			d.Name += "/"
			d.Link += "/"
		} else if fi, err := e.Info(); err == nil {
			d.Size = strconv.FormatInt(fi.Size(), 10)
		}
		p.Entries = append(p.Entries, d)
	}
	render(w, dirTemplate, p)
}

var dirTemplate = template.Must(template.New("dir").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{{.Rel}}</title><style>{{.CSS}}</style></head>
<body>
<p><a href="/">all sessions</a> · <a href="{{.Up}}">up</a></p>
<h1>{{.Rel}}/</h1>
<table class="files">
<tr><th>Name</th><th>Bytes</th></tr>
{{range .Entries}}<tr><td><a href="{{.Link}}">{{.Name}}</a></td><td>{{.Size}}</td></tr>
{{end}}</table>
</body>
</html>
`))

// History browser.

// HistoryQuery is what a history page shows: page Page (from 1) of Per
// ops among those matching the filters (empty matches all).
type HistoryQuery struct {
	Page, Per        int
	Process, F, Type string
}

// matches reports whether op passes the query's filters.
func (q HistoryQuery) matches(op *history.Op) bool {
	if q.Type != "" && string(op.Type) != q.Type {
		return false
	}
	if q.F != "" && op.F != q.F {
		return false
	}
	if q.Process != "" && processName(op.Process) != q.Process && "p"+processName(op.Process) != q.Process {
		return false
	}
	return true
}

func (q HistoryQuery) filtered() bool { return q.Process != "" || q.F != "" || q.Type != "" }

func processName(p int) string {
	if p == history.NemesisProcess {
		return "nemesis"
	}
	return strconv.Itoa(p)
}

// HistoryPage is one page of a history file.
type HistoryPage struct {
	Rows    []HistoryRow
	Matched int // ops matching the filters in the whole file
	Lines   int // non-blank lines in the file
	// Bad counts the lines read that are no op (a killed run's torn
	// last line); lines skipped over unread are not counted.
	Bad int
	// Pos is, when the scan looked for an op index, its position among
	// the matching ops (from 0), or -1 when no matching op has it.
	Pos int
}

// HistoryRow is one line of a history page: an op, or a line that is none.
type HistoryRow struct {
	Line int
	Op   *history.Op
	Err  string
	Raw  string
}

// maxLine bounds one history line; a longer one is reported, not loaded.
const maxLine = 16 << 20

// ScanHistory reads one page of a JSONL history from r, line by line:
// only the page's ops are kept, so a page of a big file costs one pass and
// no more memory than the page. When find >= 0 it also reports where the
// op with that index falls among the matching ops.
func ScanHistory(r io.Reader, q HistoryQuery, find int64) (HistoryPage, error) {
	if q.Per <= 0 {
		q.Per = defaultPer
	}
	if q.Page <= 0 {
		q.Page = 1
	}
	from, to := (q.Page-1)*q.Per, q.Page*q.Per
	page := HistoryPage{Pos: -1}
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		b, tooLong, err := readLine(br)
		if tooLong || len(bytes.TrimSpace(b)) > 0 {
			page.Lines++
			need := q.filtered() || find >= 0 || (page.Matched >= from && page.Matched < to)
			if need {
				var row HistoryRow
				if tooLong {
					row = HistoryRow{Line: line, Err: fmt.Sprintf("longer than %d bytes: not shown", maxLine)}
				} else if op, perr := history.ParseJSONLine(b); perr != nil {
					row = HistoryRow{Line: line, Err: perr.Error(), Raw: truncate(string(b), 400)}
				} else {
					row = HistoryRow{Line: line, Op: &op}
				}
				if row.Op == nil {
					page.Bad++
				}
				ok := row.Op == nil && !q.filtered() || row.Op != nil && q.matches(row.Op)
				if ok {
					if find >= 0 && row.Op != nil && row.Op.Index == find && page.Pos < 0 {
						page.Pos = page.Matched
					}
					if page.Matched >= from && page.Matched < to {
						page.Rows = append(page.Rows, row)
					}
					page.Matched++
				}
			} else {
				page.Matched++
			}
		}
		if err == io.EOF {
			return page, nil
		}
		if err != nil {
			return page, fmt.Errorf("read history: %w", err)
		}
	}
}

// readLine returns the next line without its newline, and io.EOF after
// the last; a line longer than maxLine is skipped and reported as tooLong.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if buf == nil && err != bufio.ErrBufferFull {
			return bytes.TrimRight(chunk, "\r\n"), false, err
		}
		if len(buf)+len(chunk) > maxLine {
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			return nil, true, err
		}
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			return bytes.TrimRight(buf, "\r\n"), false, err
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

type historyView struct {
	Rel, Session, Self string
	Q                  HistoryQuery
	Page               HistoryPage
	Pages              int
	First, Prev, Next  string
	Last               string
	Rows               []historyCells
	Types              []string
	CSS                template.CSS
}

type historyCells struct {
	Line                                                 int
	Anchor                                               string
	Index, Time, Process, Type, F, Key, Value, Err, Node string
	Epoch, Extra                                         string
	Bad                                                  string
}

func (s *server) history(w http.ResponseWriter, r *http.Request, rel string) {
	real, err := s.resolve(rel)
	if err != nil {
		fail(w, r, err)
		return
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	v := r.URL.Query()
	q := HistoryQuery{Page: atoi(v.Get("page"), 1), Per: atoi(v.Get("per"), defaultPer),
		Process: strings.TrimSpace(v.Get("process")), F: strings.TrimSpace(v.Get("f")), Type: strings.TrimSpace(v.Get("type"))}
	q.Per = min(max(q.Per, 1), maxPer)
	q.Page = max(q.Page, 1)
	find := int64(-1)
	if o := v.Get("op"); o != "" {
		n, err := strconv.ParseInt(o, 10, 64)
		if err != nil || n < 0 {
			http.Error(w, "op: want an op index", http.StatusBadRequest)
			return
		}
		find = n
	}
	f, err := os.Open(real)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	page, err := ScanHistory(f, q, find)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if find >= 0 {
		if page.Pos < 0 {
			http.Error(w, fmt.Sprintf("op %d is not in %s (under these filters)", find, rel), http.StatusNotFound)
			return
		}
		q.Page = page.Pos/q.Per + 1
		http.Redirect(w, r, historyURL(rel, q)+"#op-"+strconv.FormatInt(find, 10), http.StatusFound)
		return
	}
	view := historyView{Rel: rel, Q: q, Page: page, CSS: template.CSS(report.IndexCSS), Types: []string{"invoke", "ok", "fail", "info"}}
	view.Pages = max((page.Matched+q.Per-1)/q.Per, 1)
	if sess := s.sessionOf(filepath.Dir(real)); sess != "" {
		view.Session = sessionPrefix + escapePath(sess) + "/"
	}
	at := func(n int) string { qq := q; qq.Page = n; return historyURL(rel, qq) }
	view.Self = at(q.Page)
	if q.Page > 1 {
		view.First, view.Prev = at(1), at(min(q.Page-1, view.Pages))
	}
	if q.Page < view.Pages {
		view.Next, view.Last = at(q.Page+1), at(view.Pages)
	}
	for _, row := range page.Rows {
		view.Rows = append(view.Rows, cells(row))
	}
	render(w, historyTemplate, view)
}

// sessionOf is the session directory (relative to the root) holding dir,
// or "" when none does.
func (s *server) sessionOf(dir string) string {
	root, err := s.resolve("")
	if err != nil {
		return ""
	}
	for d := dir; strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		if report.IsSessionDir(d) {
			rel, _ := filepath.Rel(root, d)
			return filepath.ToSlash(rel)
		}
	}
	return ""
}

func historyURL(rel string, q HistoryQuery) string {
	v := url.Values{}
	v.Set("page", strconv.Itoa(q.Page))
	v.Set("per", strconv.Itoa(q.Per))
	for k, x := range map[string]string{"process": q.Process, "f": q.F, "type": q.Type} {
		if x != "" {
			v.Set(k, x)
		}
	}
	return historyPrefix + escapePath(rel) + "?" + v.Encode()
}

func atoi(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

func cells(row HistoryRow) historyCells {
	c := historyCells{Line: row.Line}
	if row.Op == nil {
		c.Bad = fmt.Sprintf("line %d is no op: %s %s", row.Line, row.Err, row.Raw)
		return c
	}
	op := row.Op
	c.Anchor = "op-" + strconv.FormatInt(op.Index, 10)
	c.Index = strconv.FormatInt(op.Index, 10)
	c.Time = strconv.FormatFloat(float64(op.Time)/1e6, 'f', 3, 64)
	c.Process = processName(op.Process)
	if op.Process != history.NemesisProcess {
		c.Process = "p" + c.Process
	}
	c.Type, c.F, c.Node = string(op.Type), op.F, op.Node
	c.Key, c.Value, c.Err = jsonText(op.Key), jsonText(op.Value), jsonText(op.Error)
	c.Epoch = strconv.Itoa(op.FaultEpoch)
	if len(op.Extra) > 0 {
		c.Extra = jsonText(op.Extra)
	}
	return c
}

// jsonText shows a value as compact JSON; nil as nothing.
func jsonText(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return truncate(string(b), 2000)
}

var historyTemplate = template.Must(template.New("history").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{{.Rel}}</title><style>{{.CSS}}
tr.invoke td{color:#495057}tr.ok td.type{color:#2b8a3e}tr.fail td.type{color:#c92a2a}tr.info td.type{color:#e67700}
tr.nemesis{background:#fff4e6}td.v{font-family:ui-monospace,monospace;max-width:420px;overflow-wrap:anywhere}
form input{width:7em}.pager a{margin-right:10px}tr:target{outline:2px solid #1c7ed6}</style></head>
<body>
<p><a href="/">all sessions</a>{{with .Session}} · <a href="{{.}}">the session</a>{{end}}</p>
<h1>{{.Rel}}</h1>
<form method="get" id="filters">
<label>process <input name="process" value="{{.Q.Process}}" placeholder="3 or nemesis"></label>
<label>f <input name="f" value="{{.Q.F}}" placeholder="read"></label>
<label>type <select name="type"><option value="">any</option>{{range .Types}}<option{{if eq . $.Q.Type}} selected{{end}}>{{.}}</option>{{end}}</select></label>
<label>per page <input name="per" value="{{.Q.Per}}"></label>
<label>go to op <input name="op" value=""></label>
<button type="submit">show</button>
</form>
<p class="pager" id="pager">page {{.Q.Page}} of {{.Pages}}: {{.Page.Matched}} of {{.Page.Lines}} lines match{{if .Page.Bad}}; {{.Page.Bad}} of the lines read are no op (shown where they are when no filter is set){{end}}.
{{with .First}}<a href="{{.}}">first</a>{{end}}{{with .Prev}}<a rel="prev" href="{{.}}">previous</a>{{end}}{{with .Next}}<a rel="next" href="{{.}}">next</a>{{end}}{{with .Last}}<a href="{{.}}">last</a>{{end}}</p>
<table id="history">
<tr><th>index</th><th>time (ms)</th><th>process</th><th>type</th><th>f</th><th>key</th><th>value</th><th>error</th><th>node</th><th>epoch</th><th>extra</th></tr>
{{range .Rows}}{{if .Bad}}<tr class="bad"><td colspan="11" class="note">{{.Bad}}</td></tr>
{{else}}<tr id="{{.Anchor}}" class="{{.Type}}{{if eq .Process "nemesis"}} nemesis{{end}}"><td><a href="#{{.Anchor}}">{{.Index}}</a></td><td>{{.Time}}</td><td>{{.Process}}</td><td class="type">{{.Type}}</td><td>{{.F}}</td><td class="v">{{.Key}}</td><td class="v">{{.Value}}</td><td class="v">{{.Err}}</td><td>{{.Node}}</td><td>{{.Epoch}}</td><td class="v">{{.Extra}}</td></tr>
{{end}}{{else}}<tr><td colspan="11">no ops on this page</td></tr>
{{end}}</table>
</body>
</html>
`))

// AddrWarning decides whether serving on addr needs a warning: the empty
// string for a loopback address, a sentence for any other (every interface,
// another address or a host name, which is not resolved), and an error for
// an address that is no host:port.
func AddrWarning(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: want HOST:PORT: %w", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("--addr %q: port %q is not a number from 0 to 65535", addr, port)
	}
	every := fmt.Sprintf("%s listens on every network interface: anyone who can reach this machine can read every session under it", addr)
	if host == "" {
		return every, nil
	}
	if strings.EqualFold(host, "localhost") {
		return "", nil
	}
	ip := net.ParseIP(strings.SplitN(host, "%", 2)[0])
	switch {
	case ip == nil:
		return fmt.Sprintf("%s is a host name, not a loopback address: the sessions may be readable from other machines", host), nil
	case ip.IsLoopback():
		return "", nil
	case ip.IsUnspecified():
		return every, nil
	}
	return fmt.Sprintf("%s is not a loopback address: the sessions are readable from other machines that reach it", host), nil
}

// Serve serves the sessions under root on ln until ctx is done, then shuts
// the server down, giving requests in flight a few seconds to finish. It
// returns nil when ctx ended it.
func Serve(ctx context.Context, ln net.Listener, root string) error {
	srv := &http.Server{Handler: New(root), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s: %w", root, err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	return nil
}
