package report

import (
	"bufio"
	"cmp"
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/faultline/faultline/history"
)

// DefaultTimelineOps is the number of bars a timeline draws when its input
// sets no cap. At about 420 bytes a bar it keeps timeline.html near 2 MB,
// which a browser opens at once, and it holds every op of a smoke run.
const DefaultTimelineOps = 5000

// TimelineInput is what a timeline draws besides the ops.
type TimelineInput struct {
	Title     string                // e.g. "S1 — demo-store, seed 7"
	Windows   []Window              // fault windows (bands)
	Anomalous []int64               // history indexes the verdict rests on (invoke or completion)
	Refused   func(history.Op) bool // an expected failure (a cas whose precondition failed); nil: none
	MaxOps    int                   // cap on bars drawn; 0: DefaultTimelineOps
}

// timelineHistory is the file beside the timeline that holds what it
// leaves out: the history a session writes.
const timelineHistory = "history.jsonl"

// TimelineAnchor is the fragment a finding links to for a history index: "op-88".
func TimelineAnchor(index int64) string {
	return "op-" + strconv.FormatInt(index, 10)
}

// TimelineHTML writes a self-contained HTML page (inline CSS, no script)
// with Jepsen's timeline of ops: one section per key, one lane per process,
// each client op a bar from its invocation to its completion coloured by
// outcome, the fault windows as bands across every section and the
// anomalous ops outlined and listed at the top. Every bar is addressable by
// TimelineAnchor of its invocation's and its completion's index. At most
// in.MaxOps bars are drawn; the page says what it left out.
func TimelineHTML(w io.Writer, ops []history.Op, in TimelineInput) error {
	bw := bufio.NewWriter(w)
	tl := newTimeline(bw, ops, in)
	tl.render()
	if tl.err != nil {
		return fmt.Errorf("write timeline: %w", tl.err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write timeline: %w", err)
	}
	return nil
}

// tlOutcome is how a bar is coloured.
type tlOutcome uint8

const (
	tlOK tlOutcome = iota
	tlRefused
	tlFail
	tlInfo // unknown: ended info, or never completed
)

// tlClass is each outcome's CSS class; tlOutcomeText says it in words.
var (
	tlClass       = [...]string{tlOK: "ok", tlRefused: "refused", tlFail: "fail", tlInfo: "info"}
	tlOutcomeText = [...]string{
		tlOK:      "ok",
		tlRefused: "refused: an expected failure, the data did not allow it",
		tlFail:    "fail: did not take effect",
		tlInfo:    "unknown (info): may take effect at any time up to the end of the history",
	}
)

// tlBar is one client op: an invocation and its completion.
type tlBar struct {
	inv, comp  int   // positions in ops; comp is -1 when the op never completed
	start, end int64 // ns since start, clamped to ≥ 0 and end ≥ start
	kind       tlOutcome
	anomalous  bool
}

// tlSection is the ops of one key, or of the ops without a key.
type tlSection struct {
	keyed     bool
	key       any    // the first key value seen, for ordering
	name      string // history.KeyText of the key
	bars      []int  // into timeline.bars, in invocation order
	anomalous int    // bars holding an anomalous index
	drawn     []int  // the bars to draw, a subset of bars in invocation order
	note      string // what of the section was left out, and why
}

// tlPlan is which sections a timeline draws under its cap.
type tlPlan struct {
	drawn           []*tlSection
	leftKeys        int  // keyed sections not drawn
	leftUnkeyed     bool // the section without a key was not drawn
	leftOps         int  // ops in the sections not drawn
	drawnOps, total int
}

// Geometry in CSS pixels. One scale serves the whole page, chosen so the
// median op is tlMedianPx wide: ops on a key sit a few milliseconds apart,
// and at a fit-to-screen scale they would be slivers without room for
// their text. The page scrolls sideways, every section with it, so one
// time is one x across all sections.
const (
	tlGutter     = 130 // lane labels
	tlMinWidth   = 1000
	tlMaxWidth   = 200_000
	tlMinPxSec   = 50
	tlMaxPxSec   = 5000
	tlMedianPx   = 4
	tlLaneH      = 18
	tlMinBar     = 2
	tlCharW      = 6 // an estimate of a 10px sans-serif character's width
	tlMaxLabel   = 32
	tlMaxTooltip = 300 // characters of a value in a tooltip
)

// timeline holds what rendering needs; err is the first write error.
type timeline struct {
	w       *bufio.Writer
	err     error
	ops     []history.Op
	in      TimelineInput
	bars    []tlBar
	byIndex map[int64]int // history index -> bar, for the anomaly list
	plan    tlPlan
	tEnd    int64          // end of the time axis, ns
	width   float64        // px of the time axis
	step    float64        // s between ticks
	ids     map[int64]bool // ids written: a repeated history index gets its id once
}

func newTimeline(w *bufio.Writer, ops []history.Op, in TimelineInput) *timeline {
	if in.MaxOps <= 0 {
		in.MaxOps = DefaultTimelineOps
	}
	tl := &timeline{w: w, ops: ops, in: in, ids: map[int64]bool{}}
	var sections []*tlSection
	tl.bars, sections, tl.tEnd = tlPair(ops, in)
	for _, win := range in.Windows {
		tl.tEnd = max(tl.tEnd, win.Start, win.End)
	}
	tl.tEnd = max(tl.tEnd, 1)
	tl.width = min(max(float64(tl.tEnd)/1e9*tlPxPerSec(tl.bars), tlMinWidth), tlMaxWidth)
	tl.step = tlStep(float64(tl.tEnd)/1e9, tl.width/100)
	tl.byIndex = make(map[int64]int, len(in.Anomalous))
	for _, ix := range in.Anomalous {
		tl.byIndex[ix] = -1
	}
	for i, b := range tl.bars {
		if !b.anomalous {
			continue
		}
		tl.byIndex[ops[b.inv].Index] = i
		if b.comp >= 0 {
			tl.byIndex[ops[b.comp].Index] = i
		}
	}
	tl.plan = tlSelect(sections, tl.bars, in.MaxOps, tl.seconds)
	return tl
}

// tlPxPerSec is the page's scale: the median latency of the completed ops
// (a fixed sample of them on a large history) drawn tlMedianPx wide.
func tlPxPerSec(bars []tlBar) float64 {
	stride := max(len(bars)/10_000, 1)
	var lats []int64
	for i := 0; i < len(bars); i += stride {
		if b := bars[i]; b.comp >= 0 && b.kind != tlInfo {
			lats = append(lats, b.end-b.start)
		}
	}
	if len(lats) == 0 {
		return tlMinPxSec
	}
	slices.Sort(lats)
	med := float64(max(lats[len(lats)/2], 1)) / 1e9
	return min(max(tlMedianPx/med, tlMinPxSec), tlMaxPxSec)
}

// tlPair pairs invocations with completions per process in one pass and
// groups the bars by key. Nemesis ops are not bars; a completion with no
// open invocation is skipped; an invocation followed by another of the same
// process, or by the end of the history, never completed and is drawn as
// unknown. It returns the bars, the sections in no particular order, and
// the latest time seen.
func tlPair(ops []history.Op, in TimelineInput) ([]tlBar, []*tlSection, int64) {
	anomalous := make(map[int64]bool, len(in.Anomalous))
	for _, ix := range in.Anomalous {
		anomalous[ix] = true
	}
	bars := make([]tlBar, 0, len(ops)/2+1)
	open := map[int]int{} // process -> its open bar
	byKey := map[string]*tlSection{}
	var unkeyed *tlSection
	var sections []*tlSection
	var tEnd int64
	for i := range ops {
		op := &ops[i]
		t := max(op.Time, 0)
		tEnd = max(tEnd, t)
		if op.IsNemesis() {
			continue
		}
		if op.Type == history.Invoke {
			bars = append(bars, tlBar{inv: i, comp: -1, start: t, end: t, kind: tlInfo, anomalous: anomalous[op.Index]})
			open[op.Process] = len(bars) - 1
			s := unkeyed
			if op.Key != nil {
				name := history.KeyText(op.Key)
				if s = byKey[name]; s == nil {
					s = &tlSection{keyed: true, key: op.Key, name: name}
					byKey[name] = s
					sections = append(sections, s)
				}
			} else if s == nil {
				s = &tlSection{}
				unkeyed = s
				sections = append(sections, s)
			}
			s.bars = append(s.bars, len(bars)-1)
			continue
		}
		bi, ok := open[op.Process]
		if !ok {
			continue // a completion without its invocation: nothing to draw
		}
		delete(open, op.Process)
		b := &bars[bi]
		b.comp, b.end = i, max(t, b.start)
		b.anomalous = b.anomalous || anomalous[op.Index]
		switch {
		case op.Type == history.OK:
			b.kind = tlOK
		case op.Type == history.Fail && in.Refused != nil && in.Refused(*op):
			b.kind = tlRefused
		case op.Type == history.Fail:
			b.kind = tlFail
		}
	}
	for _, s := range sections {
		for _, bi := range s.bars {
			if bars[bi].anomalous {
				s.anomalous++
			}
		}
	}
	return bars, sections, tEnd
}

// tlLess orders sections: those holding anomalous ops first, then keys in
// order (integers numerically, before other keys by their text), the ops
// without a key last.
func tlLess(a, b *tlSection) int {
	if (a.anomalous > 0) != (b.anomalous > 0) {
		if a.anomalous > 0 {
			return -1
		}
		return 1
	}
	if a.keyed != b.keyed {
		if a.keyed {
			return -1
		}
		return 1
	}
	ai, aInt := a.key.(int64)
	bi, bInt := b.key.(int64)
	switch {
	case aInt && bInt:
		return cmp.Compare(ai, bi)
	case aInt:
		return -1
	case bInt:
		return 1
	}
	return strings.Compare(a.name, b.name)
}

// tlSelect orders the sections and decides what is drawn: whole sections
// while they fit in maxOps bars; a section that does not fit is cut to the
// rest of the cap when it holds anomalous ops or nothing was drawn yet, and
// everything after it is left out. seconds formats times for the notes.
func tlSelect(sections []*tlSection, bars []tlBar, maxOps int, seconds func(int64) string) tlPlan {
	slices.SortStableFunc(sections, tlLess)
	p := tlPlan{}
	budget := maxOps
	stopped := false
	for _, s := range sections {
		n := len(s.bars)
		p.total += n
		switch {
		case !stopped && n <= budget:
			s.drawn = s.bars
		case !stopped && budget > 0 && (len(p.drawn) == 0 || s.anomalous > 0):
			s.drawn, s.note = tlCut(s, bars, budget, seconds)
			stopped = true
		default:
			stopped = true
			p.leftOps += n
			if s.keyed {
				p.leftKeys++
			} else {
				p.leftUnkeyed = true
			}
			continue
		}
		budget -= len(s.drawn)
		p.drawnOps += len(s.drawn)
		p.drawn = append(p.drawn, s)
	}
	return p
}

// tlCut picks at most budget bars of a section too big for it. Without
// anomalous ops they are the first ones. With them it is every op
// overlapping the widest stretch of time around the anomalous ops that
// keeps to the budget — the anomalous ops are drawn even if they alone
// exceed it. It returns the bars and a note saying what was left out.
func tlCut(s *tlSection, bars []tlBar, budget int, seconds func(int64) string) ([]int, string) {
	n := len(s.bars)
	if s.anomalous == 0 {
		last := bars[s.bars[budget-1]]
		return s.bars[:budget], fmt.Sprintf("%s ops; drawn: the first %s, invoked up to %s; %s more not drawn",
			tlCount(n), tlCount(budget), seconds(last.start), tlCount(n-budget))
	}
	lo, hi := -1, -1
	var aEnd int64
	for pos, bi := range s.bars {
		if bars[bi].anomalous {
			if lo < 0 {
				lo = pos
			}
			hi = pos
			aEnd = max(aEnd, bars[bi].end)
		}
	}
	// stretch returns the time range around the anomalous ops widened to k
	// consecutive invocations, as evenly either side as the section allows.
	stretch := func(k int) (t0, t1 int64) {
		extra := k - (hi - lo + 1)
		right := min(n-1-hi, extra-min(lo, extra/2))
		left := min(lo, extra-right)
		t0, t1 = bars[s.bars[lo-left]].start, aEnd
		for _, bi := range s.bars[lo-left : hi+right+1] {
			t0, t1 = min(t0, bars[bi].start), max(t1, bars[bi].start)
		}
		return t0, t1
	}
	// overlapping lists the bars overlapping [t0, t1]; an unknown op
	// overlaps everything after its invocation.
	overlapping := func(t0, t1 int64, limit int) []int {
		var out []int
		for _, bi := range s.bars {
			b := bars[bi]
			if b.start <= t1 && (b.kind == tlInfo || b.end >= t0) {
				if out = append(out, bi); len(out) > limit {
					return out
				}
			}
		}
		return out
	}
	// The count overlapping grows with k: find the largest k that fits.
	best := hi - lo + 1
	for l, r := best+1, n; l <= r; {
		mid := (l + r) / 2
		if t0, t1 := stretch(mid); len(overlapping(t0, t1, budget)) <= budget {
			best, l = mid, mid+1
		} else {
			r = mid - 1
		}
	}
	t0, t1 := stretch(best)
	drawn := overlapping(t0, t1, n)
	return drawn, fmt.Sprintf("%s ops; drawn: the %s overlapping %s to %s, around the anomalous ops; %s not drawn",
		tlCount(n), tlCount(len(drawn)), seconds(t0), seconds(t1), tlCount(n-len(drawn)))
}

// tlCount writes n with thousands separators: 9,130.
func tlCount(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// tlPlural counts n things: "1 key", "9,130 keys".
func tlPlural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return tlCount(n) + " " + thing + "s"
}

// seconds formats ns since start as seconds, to the millisecond.
func (tl *timeline) seconds(t int64) string {
	return strconv.FormatFloat(float64(t)/1e9, 'f', 3, 64) + " s"
}

// x maps ns since start to px from the chart's left edge.
func (tl *timeline) x(t int64) float64 {
	return tlGutter + float64(min(max(t, 0), tl.tEnd))/float64(tl.tEnd)*tl.width
}

// printf writes formatted text unless an earlier write failed.
func (tl *timeline) printf(format string, args ...any) {
	if tl.err == nil {
		_, tl.err = fmt.Fprintf(tl.w, format, args...)
	}
}

// text writes s escaped for HTML text or a quoted attribute.
func (tl *timeline) text(s string) {
	if tl.err == nil {
		_, tl.err = tl.w.WriteString(html.EscapeString(s))
	}
}

// tlPx formats a length in CSS pixels to a tenth.
func tlPx(v float64) string {
	return strconv.FormatFloat(v, 'f', 1, 64) + "px"
}

const tlStyle = `body{font-family:sans-serif;font-size:12px;margin:16px;color:#212529}
h1{font-size:18px;margin:0 0 8px}h2{font-size:14px;margin:20px 0 4px}
p{margin:4px 0}.note{color:#495057}
.legend span{display:inline-block;padding:1px 6px;margin-right:6px;border-radius:2px;font-size:11px}
.chart{position:relative;overflow:hidden}
.axis,.bandlabels{position:relative;height:15px}
.axis{border-bottom:1px solid #adb5bd}
.tick{position:absolute;top:0;height:15px;font-size:10px;color:#495057;border-left:1px solid #adb5bd;padding-left:2px;white-space:nowrap}
.bandlabel{position:absolute;top:1px;font-size:10px;white-space:nowrap;color:#5c4813}
.lanes{position:relative}
.band{position:absolute;top:0;bottom:0;background:rgba(250,176,5,.18);border-left:1px solid #fab005;border-right:1px solid #fab005}
.band.notlanded{background:repeating-linear-gradient(45deg,rgba(134,142,150,.3) 0 4px,transparent 4px 8px);border-color:#868e96}
.lane{position:absolute;left:0;right:0;height:18px;border-bottom:1px solid #f1f3f5}
.lanelabel{position:sticky;left:0;z-index:5;display:inline-block;margin-top:2px;width:124px;overflow:hidden;white-space:nowrap;color:#495057;font-size:11px;background:rgba(255,255,255,.85)}
section>h2,section>p{position:sticky;left:16px;width:max-content;max-width:90vw}
.lanes{background-image:linear-gradient(to right,#dee2e6 1px,transparent 1px);background-repeat:repeat-x}
.op{position:absolute;top:2px;height:14px;box-sizing:border-box;padding-left:2px;overflow:hidden;white-space:nowrap;font-size:10px;line-height:14px;color:#fff}
.op .t,.lbl{position:relative}
.lbl{position:absolute;top:2px;font-size:10px;line-height:14px;white-space:nowrap}
.ok{background:#2b8a3e}.refused{background:#868e96}.fail{background:#c92a2a}
.info{background:repeating-linear-gradient(45deg,#e67700 0 3px,#ffe8cc 3px 6px);color:#000}
.info .done{position:absolute;left:0;top:0;bottom:0;background:#e67700}
.anomaly{outline:3px solid #000;z-index:3;min-width:5px}
.legend .sw-band{background:rgba(250,176,5,.18);border:1px solid #fab005}
.legend .sw-notlanded{background:repeating-linear-gradient(45deg,rgba(134,142,150,.3) 0 4px,transparent 4px 8px);border-color:#868e96}
.legend .sw-anomaly{outline:3px solid #000}
.legend .info{text-shadow:0 0 3px #fff,0 0 3px #fff}
.op:target,.op:has(>:target){outline:3px dashed #1c7ed6;z-index:4}
.op,.op span{scroll-margin:80px}
`

func (tl *timeline) render() {
	tl.printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>")
	tl.text(cmp.Or(tl.in.Title, "timeline"))
	// The grid lines are one tick step apart, starting at 0 s.
	tl.printf("</title>\n<style>\n%s.lanes{background-size:%s 100%%;background-position:%s 0}\n</style>\n</head>\n<body>\n<h1>",
		tlStyle, tlPx(tl.step*tl.width/(float64(tl.tEnd)/1e9)), tlPx(tlGutter))
	tl.text(cmp.Or(tl.in.Title, "Timeline"))
	tl.printf("</h1>\n")
	tl.summary()
	tl.anomalies()
	for i, s := range tl.plan.drawn {
		tl.section(i, s)
	}
	tl.leftOut()
	tl.printf("</body>\n</html>\n")
}

// summary says what the page holds and how to read it.
func (tl *timeline) summary() {
	p := tl.plan
	keys, unkeyed := p.leftKeys, p.leftUnkeyed
	for _, s := range p.drawn {
		if s.keyed {
			keys++
		} else {
			unkeyed = true
		}
	}
	tl.printf(`<p class="summary">%s on %s`, tlPlural(p.total, "client op"), tlPlural(keys, "key"))
	if unkeyed {
		tl.printf(" and some without a key")
	}
	tl.printf("; %s drawn, one lane per process, each op a bar from its invocation to its completion; time in seconds since the run started.</p>\n", tlCount(p.drawnOps))
	tl.printf(`<p class="legend"><span class="ok">ok</span><span class="refused">refused (expected failure)</span><span class="fail">fail</span><span class="info">unknown (info), open to the end</span><span class="sw-band">fault window</span><span class="sw-band sw-notlanded">fault not landed</span><span class="sw-anomaly">anomalous op</span></p>` + "\n")
}

// anomalies lists the ops the verdict rests on, linked to their bars.
func (tl *timeline) anomalies() {
	if len(tl.in.Anomalous) == 0 {
		return
	}
	drawn := map[int]bool{}
	for _, s := range tl.plan.drawn {
		for _, bi := range s.drawn {
			drawn[bi] = true
		}
	}
	tl.printf("<h2>Anomalous ops</h2>\n<ul class=\"anomalies\">\n")
	seen := map[int]bool{}
	for _, ix := range tl.in.Anomalous {
		bi := tl.byIndex[ix]
		if bi < 0 {
			tl.printf("<li>#%d: no bar: a nemesis op, a completion without its invocation, or not in this history</li>\n", ix)
			continue
		}
		if seen[bi] {
			continue // the invocation and the completion of one op name one bar
		}
		seen[bi] = true
		b := tl.bars[bi]
		inv := &tl.ops[b.inv]
		tl.printf("<li>")
		if drawn[bi] {
			tl.printf(`<a href="#%s">`, TimelineAnchor(ix))
		}
		tl.text(tl.opRef(b))
		if drawn[bi] {
			tl.printf("</a>")
		}
		tl.text(" " + tl.where(inv) + " " + tl.label(b) + ", " + tlOutcomeText[b.kind] + ", " + tl.seconds(b.start) + " to " + tl.seconds(b.end))
		if !drawn[bi] {
			tl.printf(" (not drawn: over the cap of %s bars)", tlCount(tl.in.MaxOps))
		}
		tl.printf("</li>\n")
	}
	tl.printf("</ul>\n")
}

// opRef names a bar by its history indexes: "#88→#89".
func (tl *timeline) opRef(b tlBar) string {
	s := "#" + strconv.FormatInt(tl.ops[b.inv].Index, 10)
	if b.comp >= 0 {
		s += "→#" + strconv.FormatInt(tl.ops[b.comp].Index, 10)
	}
	return s
}

// where names an op's key and process: "key 2, p2 on n3".
func (tl *timeline) where(op *history.Op) string {
	s := "p" + strconv.Itoa(op.Process)
	if op.Node != "" {
		s += " on " + op.Node
	}
	if op.Key != nil {
		return "key " + history.KeyText(op.Key) + ", " + s
	}
	return s
}

// tlValue renders an op value for a label: a cas's [old new] as "old→new".
func tlValue(f string, v any) string {
	if xs, ok := v.([]any); ok && f == "cas" && len(xs) == 2 {
		return history.FormatEDN(xs[0]) + "→" + history.FormatEDN(xs[1])
	}
	return history.FormatEDN(v)
}

// label is a bar's short text: "read 0", "cas 2→4", "write 3".
func (tl *timeline) label(b tlBar) string {
	op := &tl.ops[b.inv]
	v := op.Value
	if b.comp >= 0 && tl.ops[b.comp].Value != nil && (b.kind == tlOK || v == nil) {
		v = tl.ops[b.comp].Value
	}
	s := op.F
	if v != nil {
		s += " " + tlValue(op.F, v)
	}
	if utf8.RuneCountInString(s) > tlMaxLabel {
		s = string([]rune(s)[:tlMaxLabel-1]) + "…"
	}
	return s
}

// tooltip is a bar's full op.
func (tl *timeline) tooltip(b tlBar) string {
	inv := &tl.ops[b.inv]
	var sb strings.Builder
	sb.WriteString(tl.opRef(b) + " " + tl.where(inv) + "\n")
	sb.WriteString(inv.F + ": " + tlOutcomeText[b.kind] + "\n")
	val := func(v any) string {
		s := history.FormatEDN(v)
		if len(s) > tlMaxTooltip {
			s = s[:tlMaxTooltip] + "…"
		}
		return s
	}
	sb.WriteString("value: " + val(inv.Value))
	if b.comp >= 0 && !history.Equal(inv.Value, tl.ops[b.comp].Value) {
		sb.WriteString(" → " + val(tl.ops[b.comp].Value))
	}
	sb.WriteString("\n")
	if b.comp >= 0 && tl.ops[b.comp].Error != nil {
		e := tl.ops[b.comp].Error
		if s, ok := e.(string); ok {
			sb.WriteString("error: " + s + "\n")
		} else {
			sb.WriteString("error: " + val(e) + "\n")
		}
	}
	if x := tl.extra(b); x != "" {
		if len(x) > tlMaxTooltip {
			x = x[:tlMaxTooltip] + "…"
		}
		sb.WriteString("extra: " + x + "\n")
	}
	sb.WriteString("invoked " + strconv.FormatFloat(float64(b.start)/1e9, 'f', 6, 64) + " s")
	if b.comp >= 0 {
		sb.WriteString(", completed " + strconv.FormatFloat(float64(b.end)/1e9, 'f', 6, 64) + " s, latency " +
			time.Duration(b.end-b.start).Round(time.Microsecond).String())
	} else {
		sb.WriteString(", never completed")
	}
	sb.WriteString("\nfault epoch " + strconv.Itoa(inv.FaultEpoch))
	return sb.String()
}

// extra is the extra fields a client recorded on a bar's op, from its
// completion or, when it never completed, its invocation.
func (tl *timeline) extra(b tlBar) string {
	op := &tl.ops[b.inv]
	if b.comp >= 0 {
		op = &tl.ops[b.comp]
	}
	return history.ExtraText(op.Extra)
}

// section draws one key's lanes under the shared time axis and bands.
func (tl *timeline) section(n int, s *tlSection) {
	title := "ops without a key"
	if s.keyed {
		title = "key " + s.name
	}
	// The span of the drawn ops: the ticks are labelled there only, and the
	// heading links to its first op so the page scrolls sideways to them.
	lo, hi := tl.tEnd, int64(0)
	for _, bi := range s.drawn {
		lo, hi = min(lo, tl.bars[bi].start), max(hi, tl.bars[bi].end)
	}
	full := tlGutter + tl.width + 8
	tl.printf(`<section id="s%d" style="width:%s">`+"\n<h2>", n+1, tlPx(full))
	tl.text(title)
	tl.printf("</h2>\n<p class=\"note\">")
	if s.note != "" {
		tl.text(s.note + " — " + timelineHistory + " has them")
	} else {
		tl.printf("%s ops", tlCount(len(s.drawn)))
		if s.anomalous > 0 {
			tl.printf(", %s anomalous", tlCount(s.anomalous))
		}
	}
	if len(s.drawn) > 0 {
		tl.printf(`, invoked from %s to %s: <a href="#%s">go to them</a>`, tl.seconds(lo), tl.seconds(tl.bars[s.drawn[len(s.drawn)-1]].start),
			TimelineAnchor(tl.ops[tl.bars[s.drawn[0]].inv].Index))
		// Which faults those ops ran under, so a tester need not scroll to
		// the bands to know whether there were any.
		var active []string
		for _, w := range tl.in.Windows {
			if w.Start <= hi && tl.windowEnd(w) >= lo {
				active = append(active, tl.windowText(w))
			}
		}
		if len(active) == 0 {
			tl.printf("; no fault window overlaps them")
		} else {
			tl.text("; fault windows overlapping them: " + strings.Join(active, ", "))
		}
	}
	tl.printf("</p>\n")
	// Lanes: the processes of the drawn ops, in order, with their nodes.
	lanes := map[int]int{}
	var procs []int
	nodes := map[int][]string{}
	for _, bi := range s.drawn {
		op := &tl.ops[tl.bars[bi].inv]
		if _, ok := lanes[op.Process]; !ok {
			lanes[op.Process] = 0
			procs = append(procs, op.Process)
		}
		if op.Node != "" && !slices.Contains(nodes[op.Process], op.Node) {
			nodes[op.Process] = append(nodes[op.Process], op.Node)
		}
	}
	slices.Sort(procs)
	for i, p := range procs {
		lanes[p] = i
	}
	tl.printf(`<div class="chart" style="width:%s">`+"\n", tlPx(full))
	tl.axis(lo, hi)
	tl.bandLabels()
	tl.printf(`<div class="lanes" style="height:%s">`+"\n", tlPx(float64(len(procs)*tlLaneH)))
	tl.bands()
	// Bars per lane, so each knows where the next one in its lane starts.
	perLane := make([][]int, len(procs))
	for _, bi := range s.drawn {
		l := lanes[tl.ops[tl.bars[bi].inv].Process]
		perLane[l] = append(perLane[l], bi)
	}
	for l, p := range procs {
		tl.printf(`<div class="lane" style="top:%s"><span class="lanelabel">`, tlPx(float64(l*tlLaneH)))
		tl.text("p" + strconv.Itoa(p) + " " + strings.Join(nodes[p], ","))
		tl.printf("</span>\n")
		for j, bi := range perLane[l] {
			next := tlGutter + tl.width
			if j+1 < len(perLane[l]) {
				next = tl.x(tl.bars[perLane[l][j+1]].start)
			}
			tl.bar(bi, next)
		}
		tl.printf("</div>\n")
	}
	tl.printf("</div>\n</div>\n</section>\n")
}

// bar draws one op; next is where the next bar of its lane starts, which
// bounds where its label may go.
func (tl *timeline) bar(bi int, next float64) {
	b := tl.bars[bi]
	x0 := tl.x(b.start)
	x1 := tl.x(b.end)
	if b.kind == tlInfo {
		x1 = tl.x(tl.tEnd) // unknown: it may take effect any time until the end
	}
	w := max(x1-x0, tlMinBar)
	label := tl.label(b)
	lw := float64(utf8.RuneCountInString(label)*tlCharW + 4)
	inside := lw <= w && lw <= next-x0
	beside := !inside && b.kind != tlInfo && x0+w+2+lw <= next
	class := "op " + tlClass[b.kind]
	if b.anomalous {
		class += " anomaly"
	}
	invIx := tl.ops[b.inv].Index
	tl.printf(`<div class="%s"`, class)
	if !tl.ids[invIx] {
		tl.ids[invIx] = true
		tl.printf(` id="%s"`, TimelineAnchor(invIx))
	}
	tl.printf(` style="left:%s;width:%s" title="`, tlPx(x0), tlPx(w))
	tl.text(tl.tooltip(b))
	tl.printf(`">`)
	if b.comp >= 0 {
		compIx := tl.ops[b.comp].Index
		tl.printf("<span")
		if !tl.ids[compIx] {
			tl.ids[compIx] = true
			tl.printf(` id="%s"`, TimelineAnchor(compIx))
		}
		if b.kind == tlInfo {
			// The solid part is how long the client waited before giving up.
			tl.printf(` class="done" style="width:%s"`, tlPx(max(tl.x(b.end)-x0, 0)))
		}
		tl.printf("></span>")
	}
	if inside {
		tl.printf(`<span class="t">`)
		tl.text(label)
		tl.printf("</span>")
	}
	tl.printf("</div>")
	if beside {
		tl.printf(`<span class="lbl" style="left:%s">`, tlPx(x0+w+2))
		tl.text(label)
		tl.printf("</span>")
	}
	tl.printf("\n")
}

// axis labels the time ticks, about one per 100 px, from a tick before lo
// to one after hi: a wide page would otherwise repeat thousands of labels
// per section. The grid lines (CSS, in the head) run across all of it.
func (tl *timeline) axis(lo, hi int64) {
	tl.printf(`<div class="axis">`)
	first := max(int(float64(lo)/1e9/tl.step)-1, 0)
	// As many decimals as the step has: 0.05 s steps read 0.15, not 0.15000000000000002.
	decimals := 0
	if st := strconv.FormatFloat(tl.step, 'f', -1, 64); strings.Contains(st, ".") {
		decimals = len(st) - strings.Index(st, ".") - 1
	}
	for i := first; ; i++ {
		s := float64(i) * tl.step
		t := int64(s * 1e9)
		if t > tl.tEnd || t > hi+int64(tl.step*1e9) {
			break
		}
		tl.printf(`<span class="tick" style="left:%s">%s s</span>`, tlPx(tl.x(t)), strconv.FormatFloat(s, 'f', decimals, 64))
	}
	tl.printf("</div>\n")
}

// tlStep is a 1, 2 or 5 times a power of ten step giving at most about n
// ticks over span seconds.
func tlStep(span, n float64) float64 {
	if span <= 0 || n < 1 {
		return max(span, 1)
	}
	for step := 1e-6; ; step *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if span/(step*m) <= n {
				// Round away the float error of the repeated products.
				v, _ := strconv.ParseFloat(strconv.FormatFloat(step*m, 'g', 1, 64), 64)
				return v
			}
		}
	}
}

// windowEnd is where a window's band ends: a window never healed lasts to
// the end of the axis.
func (tl *timeline) windowEnd(w Window) int64 {
	if w.End < w.Start {
		return tl.tEnd
	}
	return w.End
}

// bandLabels names the fault windows above the lanes.
func (tl *timeline) bandLabels() {
	tl.printf(`<div class="bandlabels">`)
	for _, w := range tl.in.Windows {
		tl.printf(`<span class="bandlabel" style="left:%s">`, tlPx(tl.x(w.Start)+2))
		tl.text(tl.windowText(w))
		tl.printf("</span>")
	}
	tl.printf("</div>\n")
}

// windowText is a window's label with what is odd about it.
func (tl *timeline) windowText(w Window) string {
	s := WindowLabel(w)
	if !w.Landed {
		s += " (not landed)"
	}
	if w.End < w.Start {
		s += " (never healed)"
	}
	return s
}

// bands shades the fault windows across the lanes.
func (tl *timeline) bands() {
	for _, w := range tl.in.Windows {
		class := "band"
		if !w.Landed {
			class += " notlanded"
		}
		x0 := tl.x(w.Start)
		end := tl.windowEnd(w)
		tl.printf(`<div class="%s" style="left:%s;width:%s" title="`, class, tlPx(x0), tlPx(max(tl.x(end)-x0, 1)))
		tl.text(tl.windowText(w) + ": " + tl.seconds(max(w.Start, 0)) + " to " + tl.seconds(end))
		tl.printf(`"></div>` + "\n")
	}
}

// leftOut says which whole sections were not drawn.
func (tl *timeline) leftOut() {
	p := tl.plan
	if p.leftKeys == 0 && !p.leftUnkeyed {
		return
	}
	var what []string
	if p.leftKeys > 0 {
		what = append(what, tlPlural(p.leftKeys, "more key"))
	}
	if p.leftUnkeyed {
		what = append(what, "the ops without a key")
	}
	tl.printf(`<p class="note leftout">`)
	tl.text(fmt.Sprintf("%s, %s ops, not drawn (over the cap of %s bars) — %s has them",
		strings.Join(what, " and "), tlCount(p.leftOps), tlCount(tl.in.MaxOps), timelineHistory))
	tl.printf("</p>\n")
}
