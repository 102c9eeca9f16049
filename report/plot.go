package report

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/plural"
)

// Window is one fault window to shade on a plot. Callers convert from
// nemesis.FaultWindows so this package need not import the nemesis builtins.
type Window struct {
	Name       string   // the fault, e.g. "start-partition"
	Start, End int64    // ns since the run started; End < Start means never healed
	Landed     bool     // false draws the window hatched and labelled "not landed"
	Victims    []string // nodes the fault acted on; empty for a partition
	Shape      string   // a partition's shape, e.g. "n1 | n2 n3"; "" otherwise
}

// Span is a stretch of the run, ns since it started.
type Span struct{ Start, End int64 }

// RecoverySpans are the two windows RF8 compared.
type RecoverySpans struct {
	Before, After           Span
	BeforeLabel, AfterLabel string
}

// PlotInput is what a plot draws besides the ops.
type PlotInput struct {
	Windows   []Window
	Anomalous []int64               // history indexes the verdict rests on
	Refused   func(history.Op) bool // an expected failure; nil: none
	Recovery  *RecoverySpans        // nil: RF8 measured nothing
}

// WindowLabel is a fault window's label: fault and victims (used by the
// timeline too), e.g. "kill n2" or "partition n1 | n2 n3". The "start-"
// of a fault that a "stop-" op heals is dropped: the band is the fault.
func WindowLabel(w Window) string {
	name := strings.TrimPrefix(w.Name, "start-")
	if name == "" {
		name = w.Name
	}
	switch {
	case w.Shape != "":
		return name + " " + w.Shape
	case len(w.Victims) > 0:
		return name + " " + strings.Join(w.Victims, " ")
	}
	return name
}

// MaxScatter caps the latency scatter; larger histories are sampled by a
// fixed stride so the file stays small and the output deterministic.
// Anomalous ops are drawn whatever the stride.
const MaxScatter = 20_000

// Plot geometry in SVG user units. The three panels share the x range, so
// a fault band reads straight down through all of them.
const (
	plotW               = 1100
	plotLeft, plotRight = 90, 1070
	legendY             = 38     // baseline of the first legend row
	laneTop, laneH      = 80, 12 // fault-label lanes above panel (a)
	faultLanes          = 3
	latTop, latBot      = 132, 392
	quTop, quBot        = 422, 592
	rateTop, rateBot    = 622, 812
	tickLaneY           = rateBot + 46 // first lane of the anomaly tick labels
	tickLanes           = 2
	maxTickLabels       = 30 // anomaly ticks labelled at most; the rest keep their <title>
	captionY            = rateBot + 76
	plotH               = captionY + 34
	maxThroughputBin    = 200 // time bins at most
)

// outcome is how a client op ended, as the plot tells them apart.
type outcome uint8

const (
	outOK      outcome = iota
	outRefused         // a definite failure the workload expected (cas precondition)
	outFail            // a definite failure: an error
	outInfo            // unknown outcome
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"ok", "refused", "fail", "info"}

// outcomeDash is each outcome's line style on the rate panel.
var outcomeDash = [numOutcomes]string{"", "6 3", "2 2", "9 3 2 3"}

// classify sorts a completion into an outcome; ok is false for an
// invocation. Refused is asked only about definite failures: an ok or an
// unknown outcome is never an expected failure.
func classify(op *history.Op, refused func(history.Op) bool) (outcome, bool) {
	switch op.Type {
	case history.OK:
		return outOK, true
	case history.Fail:
		if refused != nil && refused(*op) {
			return outRefused, true
		}
		return outFail, true
	case history.Info:
		return outInfo, true
	}
	return 0, false
}

// palette colours op functions in sorted order of F; it has no red, which
// the fault bands use. More functions than colours repeat them (captioned).
var palette = [...]string{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79"}

// quantiles drawn on panel (b), with their colours.
var quantiles = [...]struct {
	name   string
	q      float64
	colour string
}{{"p50", 0.50, "#1864ab"}, {"p95", 0.95, "#e67700"}, {"p99", 0.99, "#c2255c"}, {"max", 1, "#212529"}}

const (
	bandFill    = `fill="#fa5252" fill-opacity="0.12"`
	hatchFill   = `fill="url(#hatch)" fill-opacity="0.45"`
	anomColour  = "#e8590c"
	rf8Colour   = "#1c7ed6"
	labelHalo   = `paint-order="stroke" stroke="white" stroke-width="3" stroke-linejoin="round"`
	panelFrame  = `fill="none" stroke="#343a40" class="frame"`
	gridColour  = "#e9ecef"
	faintColour = "#495057"
)

// point is one client completion: when it completed, how long it took,
// its function and outcome, and where its two records sit in the ops.
type point struct {
	t, lat    int64
	f         uint16 // index into plotter.fs
	out       outcome
	inv, comp int32 // positions in ops of the invocation and the completion
}

// mark is one anomalous op resolved against the history.
type mark struct {
	t     int64 // completion time, or the op's own time without one
	pt    int   // index into points; -1 when the op has no latency
	label string
	title string
}

// PlotSVG writes one self-contained SVG of a history, three panels on one
// time axis: (a) every client completion's latency (log scale) coloured
// by function and shaped by outcome, (b) latency quantiles per time bin,
// (c) completions per second per function and outcome. Fault windows are
// bands through all three, anomalous ops are ringed and ticked on the
// time axis, and the windows RF8 compared are bracketed on (c). A history
// without timed ops renders as a labelled empty plot rather than failing.
func PlotSVG(w io.Writer, ops []history.Op, in PlotInput) error {
	bw := bufio.NewWriter(w)
	p := newPlotter(bw, ops, in)
	p.render()
	if p.err != nil {
		return fmt.Errorf("write plot: %w", p.err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	return nil
}

// plotter holds what rendering needs; err is the first write error, so the
// drawing code reads top to bottom without an error check per element.
type plotter struct {
	w       *bufio.Writer
	err     error
	buf     []byte
	ops     []history.Op
	in      PlotInput
	points  []point
	fs      []string // distinct functions of client completions, sorted
	tMax    int64    // end of the x axis, ns
	marks   []mark
	missing []int64 // anomalous indexes the history does not hold
	anom    map[int]bool
	// Log-scale latency range shared by panels (a) and (b), in decades of ms.
	dLo, dHi float64
	bin      int64 // time bin of panels (b) and (c), ns
	nb       int
}

func newPlotter(w *bufio.Writer, ops []history.Op, in PlotInput) *plotter {
	p := &plotter{w: w, ops: ops, in: in, points: make([]point, 0, len(ops)/2)}
	invoked := make(map[int]int)
	fIndex := make(map[string]uint16)
	for i := range ops {
		op := &ops[i]
		p.tMax = max(p.tMax, op.Time)
		if op.IsNemesis() {
			continue
		}
		if op.Type == history.Invoke {
			invoked[op.Process] = i
			continue
		}
		start, ok := invoked[op.Process]
		if !ok {
			continue // a completion without its invocation has no latency
		}
		out, ok := classify(op, in.Refused)
		if !ok {
			continue
		}
		delete(invoked, op.Process)
		f, seen := fIndex[op.F]
		if !seen {
			f = uint16(min(len(p.fs), math.MaxUint16))
			fIndex[op.F] = f
			p.fs = append(p.fs, op.F)
		}
		// Clamp: a negative time is bad input, not a reason to index out of range.
		p.points = append(p.points, point{t: max(op.Time, 0), lat: max(op.Time-ops[start].Time, 0), f: f, out: out, inv: int32(start), comp: int32(i)})
	}
	// Colours follow sorted F so the same functions get the same colours.
	sorted := slices.Clone(p.fs)
	slices.Sort(sorted)
	remap := make([]uint16, len(p.fs))
	for old, name := range p.fs {
		remap[old] = uint16(slices.Index(sorted, name))
	}
	for i := range p.points {
		p.points[i].f = remap[p.points[i].f]
	}
	p.fs = sorted
	for _, win := range in.Windows {
		p.tMax = max(p.tMax, win.End, win.Start)
	}
	if r := in.Recovery; r != nil {
		p.tMax = max(p.tMax, r.Before.End, r.After.End)
	}
	p.resolveAnomalies()
	return p
}

// resolveAnomalies turns the verdict's history indexes into marks: an
// index may name an invocation or a completion, and both name one op.
func (p *plotter) resolveAnomalies() {
	if len(p.in.Anomalous) == 0 {
		return
	}
	byIndex := make(map[int64]int, len(p.ops)) // op.Index -> position in ops
	for i := range p.ops {
		if _, dup := byIndex[p.ops[i].Index]; !dup {
			byIndex[p.ops[i].Index] = i
		}
	}
	pointAt := make(map[int]int, 2*len(p.points)) // position in ops -> point
	for k, pt := range p.points {
		pointAt[int(pt.inv)], pointAt[int(pt.comp)] = k, k
	}
	p.anom = make(map[int]bool)
	seenOp := make(map[int]bool)
	for _, idx := range p.in.Anomalous {
		pos, ok := byIndex[idx]
		if !ok {
			p.missing = append(p.missing, idx)
			continue
		}
		if k, ok := pointAt[pos]; ok {
			if p.anom[k] {
				continue
			}
			p.anom[k] = true
			pt := p.points[k]
			inv, comp := &p.ops[pt.inv], &p.ops[pt.comp]
			p.marks = append(p.marks, mark{t: pt.t, pt: k, label: "#" + strconv.FormatInt(inv.Index, 10), title: describeOp(inv, comp, pt.out)})
			continue
		}
		if seenOp[pos] {
			continue
		}
		seenOp[pos] = true
		op := &p.ops[pos]
		p.marks = append(p.marks, mark{t: max(op.Time, 0), pt: -1, label: "#" + strconv.FormatInt(op.Index, 10), title: describeOp(op, nil, 0) + " (no completion: latency unknown)"})
	}
	slices.SortStableFunc(p.marks, func(a, b mark) int {
		if a.t != b.t {
			return cmpInt64(a.t, b.t)
		}
		return strings.Compare(a.label, b.label)
	})
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// describeOp names an op as a person reads a history line, the way the
// checkers do: "#88 p2 read -> 0 @2", then how it ended. comp is nil for
// an op without a completion (or a nemesis op).
func describeOp(inv, comp *history.Op, out outcome) string {
	var b strings.Builder
	b.WriteString("#" + strconv.FormatInt(inv.Index, 10) + " ")
	if inv.IsNemesis() {
		b.WriteString("nemesis")
	} else {
		b.WriteString("p" + strconv.Itoa(inv.Process))
	}
	b.WriteString(" " + inv.F)
	switch pair, isPair := inv.Value.([]any); {
	case inv.F == "cas" && isPair && len(pair) == 2:
		b.WriteString(" " + history.FormatEDN(pair[0]) + " -> " + history.FormatEDN(pair[1]))
	case inv.Value != nil:
		b.WriteString(" " + history.FormatEDN(inv.Value))
	case comp != nil && comp.Type == history.OK && comp.Value != nil:
		b.WriteString(" -> " + history.FormatEDN(comp.Value))
	case comp != nil && comp.Type != history.OK && !inv.IsNemesis():
		b.WriteString(" -> ?")
	}
	if inv.Key != nil {
		b.WriteString(" @" + history.FormatEDN(inv.Key))
	}
	if comp == nil {
		return b.String()
	}
	b.WriteString(": " + outcomeNames[out])
	if comp.Error != nil {
		b.WriteString(" (" + history.FormatEDN(comp.Error) + ")")
	}
	b.WriteString(", completed #" + strconv.FormatInt(comp.Index, 10) + " at " + fmtDuration(max(comp.Time, 0)) + " after " + fmtDuration(max(comp.Time-inv.Time, 0)))
	return b.String()
}

// printf writes formatted text unless an earlier write failed.
func (p *plotter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// write writes b unless an earlier write failed.
func (p *plotter) write(b []byte) {
	if p.err == nil {
		_, p.err = p.w.Write(b)
	}
}

// text writes s escaped for XML character data.
func (p *plotter) text(s string) {
	if p.err == nil {
		p.err = xml.EscapeText(p.w, []byte(s))
	}
}

// textEl writes one <text> element: attrs are raw attributes, s is escaped.
func (p *plotter) textEl(x, y float64, attrs, s string) {
	p.printf(`<text x="%s" y="%s"%s>`, num(x), num(y), attrs)
	p.text(s)
	p.printf("</text>\n")
}

// titleEl writes a <title>, the tooltip and the accessible name of its group.
func (p *plotter) titleEl(s string) {
	p.printf("<title>")
	p.text(s)
	p.printf("</title>")
}

func (p *plotter) render() {
	p.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", plotW, plotH, plotW, plotH)
	p.titleEl("faultline plot: " + p.summary())
	p.printf("\n" + `<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="8" stroke="#868e96" stroke-width="2"/></pattern></defs>` + "\n")
	p.printf(`<rect width="%d" height="%d" fill="white"/>`+"\n", plotW, plotH)
	if p.tMax <= 0 {
		p.printf(`<text x="%d" y="%d" text-anchor="middle" font-size="16">no timed ops: nothing to plot</text>`+"\n", plotW/2, plotH/2)
		p.printf("</svg>\n")
		return
	}
	p.scales()
	p.textEl(plotLeft, 18, ` font-size="13" font-weight="bold"`, p.summary())
	p.bands()
	p.latencyPanel()
	p.quantilePanel()
	p.ratePanel()
	p.timeAxis()
	p.legend()
	p.captions()
	p.printf("</svg>\n")
}

// summary counts what the plot shows, for its heading and <title>.
func (p *plotter) summary() string {
	return plural.Count(len(p.points), "client completion") + " over " + fmtDuration(max(p.tMax, 0)) + ", " + plural.Count(len(p.in.Windows), "fault window") + ", " + plural.Count(len(p.marks), "anomalous op")
}

// scales fixes the time bins and the log latency range both latency
// panels share.
func (p *plotter) scales() {
	p.bin = throughputBin(p.tMax)
	p.nb = int(p.tMax/p.bin) + 1
	if len(p.points) == 0 {
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range p.points {
		l := latencyMs(pt.lat)
		lo, hi = math.Min(lo, l), math.Max(hi, l)
	}
	p.dLo, p.dHi = math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if p.dHi <= p.dLo {
		p.dHi = p.dLo + 1
	}
}

// x maps ns since start to the shared horizontal axis, clamped to it.
func (p *plotter) x(t int64) float64 {
	t = min(max(t, 0), p.tMax)
	return plotLeft + float64(t)/float64(p.tMax)*(plotRight-plotLeft)
}

// logY maps a latency in ms onto a panel between top and bot.
func (p *plotter) logY(ms float64, top, bot float64) float64 {
	return bot - (math.Log10(ms)-p.dLo)/(p.dHi-p.dLo)*(bot-top)
}

// num renders v with one decimal: enough for screen units, and stable.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// textWidth estimates a label's width in user units, for laying labels
// out without a font: sans-serif averages a little over half an em.
func textWidth(s string, fontSize float64) float64 {
	return float64(utf8.RuneCountInString(s)) * fontSize * 0.58
}

// lanes places labels in rows so they do not overlap: each label takes
// the first row whose last label ends before it starts; when none is
// free it shares the row that frees up first.
type lanes struct{ ends []float64 }

func newLanes(n int) *lanes {
	l := &lanes{ends: make([]float64, n)}
	for i := range l.ends {
		l.ends[i] = math.Inf(-1)
	}
	return l
}

func (l *lanes) place(x, width float64) int {
	best := 0
	for i, end := range l.ends {
		if end+4 <= x {
			l.ends[i] = x + width
			return i
		}
		if end < l.ends[best] {
			best = i
		}
	}
	l.ends[best] = max(l.ends[best], x+width)
	return best
}

// labelX keeps a label that starts at x inside the plot's right edge.
func labelX(x, width float64) float64 {
	return max(plotLeft, min(x, plotRight-width))
}

// bands draws each fault window through all three panels, labelled with
// its fault and victims in lanes above panel (a).
func (p *plotter) bands() {
	p.printf(`<g id="fault-bands">` + "\n")
	ln := newLanes(faultLanes)
	for _, win := range p.in.Windows {
		end, healed := win.End, win.End >= win.Start
		if !healed {
			end = p.tMax
		}
		x0, x1 := p.x(win.Start), p.x(end)
		label, fill := WindowLabel(win), bandFill
		if !win.Landed {
			label, fill = label+" (not landed)", hatchFill
		}
		if !healed {
			label += " (never healed)"
		}
		title := label + ": " + fmtDuration(max(win.Start, 0)) + " to "
		if healed {
			title += fmtDuration(max(win.End, 0))
		} else {
			title += "the end of the run"
		}
		p.printf(`<g class="fault-band">`)
		p.titleEl(title)
		p.printf(`<rect x="%s" y="%d" width="%s" height="%d" %s/>`, num(x0), latTop, num(max(x1-x0, 1)), rateBot-latTop, fill)
		width := textWidth(label, 10)
		lx := labelX(x0, width)
		ly := float64(laneTop + ln.place(lx, width)*laneH)
		p.printf(`<line x1="%s" y1="%s" x2="%s" y2="%d" stroke="#fa5252" stroke-opacity="0.6"/>`, num(x0), num(ly+2), num(x0), latTop)
		p.textEl(lx, ly, ` font-size="10" fill="#c92a2a" class="band-label" `+labelHalo, label)
		p.printf("</g>\n")
	}
	p.printf("</g>\n")
}

// emptyPanel labels a panel that has no client completions to draw.
func (p *plotter) emptyPanel(top, bot int) {
	p.printf(`<text x="%d" y="%d" text-anchor="middle">no client completions</text>`+"\n", (plotLeft+plotRight)/2, (top+bot)/2)
}

// logAxis draws the decade gridlines and labels of a log latency panel.
func (p *plotter) logAxis(id string, top, bot float64) {
	p.printf(`<g class="axis" id="%s">`, id)
	for d := p.dLo; d <= p.dHi; d++ {
		yy := num(p.logY(math.Pow(10, d), top, bot))
		p.printf(`<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="%s"/>`, plotLeft, yy, plotRight, yy, gridColour)
		p.printf(`<text x="%d" y="%s" text-anchor="end" dy="4">%s</text>`, plotLeft-4, yy, strconv.FormatFloat(math.Pow(10, d), 'g', -1, 64))
	}
	p.printf(`<text transform="translate(%d %d) rotate(-90)" text-anchor="middle">latency (ms)</text>`, plotLeft-46, int(top+bot)/2)
	p.printf("</g>\n")
}

// markerStyle is how an outcome's marker is stroked on panel (a).
var markerStyle = [numOutcomes]string{
	outOK:      `stroke-width="3.2" stroke-linecap="round" stroke-opacity="0.65"`,
	outRefused: `stroke-width="1" stroke-opacity="0.8"`,
	outFail:    `stroke-width="1.3" stroke-opacity="0.85"`,
	outInfo:    `stroke-width="1" stroke-opacity="0.85"`,
}

// appendMarker appends one marker centred on (x, y) as path data: a dot
// for ok, a hollow square for refused, a cross for fail, a hollow
// triangle for info. One path per series keeps 20k markers small.
func appendMarker(b []byte, out outcome, x, y float64) []byte {
	at := func(b []byte, dx, dy float64) []byte {
		b = append(b, 'M')
		b = strconv.AppendFloat(b, x+dx, 'f', 1, 64)
		b = append(b, ' ')
		return strconv.AppendFloat(b, y+dy, 'f', 1, 64)
	}
	switch out {
	case outOK:
		return append(at(b, 0, 0), "h0"...)
	case outRefused:
		return append(at(b, -2, -2), "h4v4h-4z"...)
	case outFail:
		return append(at(b, -2, -2), "l4 4m0-4l-4 4"...)
	default:
		return append(at(b, 0, -2.6), "l2.3 4h-4.6z"...)
	}
}

// latencyPanel draws panel (a): every client completion's latency on a
// log scale, sampled by stride past MaxScatter, anomalies always drawn
// and ringed.
func (p *plotter) latencyPanel() {
	p.printf(`<g id="panel-latency">` + "\n")
	p.printf(`<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", plotLeft, latTop, plotRight-plotLeft, latBot-latTop, panelFrame)
	p.textEl(plotLeft, latTop-8, ` font-size="13"`, "(a) latency of each client op (ms, log scale): colour is the op, shape the outcome")
	if len(p.points) == 0 {
		p.emptyPanel(latTop, latBot)
		p.printf("</g>\n")
		return
	}
	p.logAxis("axis-latency", latTop, latBot)
	series := make([][]int32, len(p.fs)*int(numOutcomes))
	stride := p.stride()
	for i, pt := range p.points {
		if i%stride == 0 || p.anom[i] {
			k := int(pt.f)*int(numOutcomes) + int(pt.out)
			series[k] = append(series[k], int32(i))
		}
	}
	for k, idx := range series {
		if len(idx) == 0 {
			continue
		}
		f, out := k/int(numOutcomes), outcome(k%int(numOutcomes))
		colour := palette[f%len(palette)]
		p.printf(`<path class="series" data-series="%s %s" fill="none" stroke="%s" %s d="`, xmlAttr(p.fs[f]), outcomeNames[out], colour, markerStyle[out])
		for _, i := range idx {
			pt := p.points[i]
			p.buf = appendMarker(p.buf[:0], out, p.x(pt.t), p.logY(latencyMs(pt.lat), latTop, latBot))
			p.write(p.buf)
		}
		p.printf("\"/>\n")
	}
	for _, m := range p.marks {
		y := float64(latTop + 8)
		if m.pt >= 0 {
			y = p.logY(latencyMs(p.points[m.pt].lat), latTop, latBot)
		}
		xx := num(p.x(m.t))
		p.printf(`<g class="anomaly">`)
		p.titleEl(m.title)
		p.printf(`<circle cx="%s" cy="%s" r="6" fill="none" stroke="#000" stroke-width="1.6"/><circle cx="%s" cy="%s" r="9" fill="none" stroke="%s" stroke-width="1.6"/>`, xx, num(y), xx, num(y), anomColour)
		p.printf("</g>\n")
	}
	p.printf("</g>\n")
}

// stride is the scatter's sampling step: 1 up to MaxScatter points.
func (p *plotter) stride() int { return max(1, (len(p.points)+MaxScatter-1)/MaxScatter) }

// xmlAttr escapes s for an attribute value in double quotes.
func xmlAttr(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}

// binQuantiles returns, per time bin, the latencies (ns) of the client
// completions in it at each of qs (nearest rank); ok[b] is false for a
// bin with no completions.
func binQuantiles(points []point, bin int64, nb int, qs []float64) (vals [][]int64, ok []bool) {
	counts := make([]int, nb+1)
	for _, pt := range points {
		counts[int(pt.t/bin)+1]++
	}
	for b := 1; b <= nb; b++ {
		counts[b] += counts[b-1]
	}
	lats := make([]int64, len(points))
	fill := slices.Clone(counts[:nb])
	for _, pt := range points {
		b := int(pt.t / bin)
		lats[fill[b]] = pt.lat
		fill[b]++
	}
	vals, ok = make([][]int64, nb), make([]bool, nb)
	for b := 0; b < nb; b++ {
		seg := lats[counts[b]:counts[b+1]]
		if len(seg) == 0 {
			continue
		}
		slices.Sort(seg)
		ok[b] = true
		vals[b] = make([]int64, len(qs))
		for i, q := range qs {
			r := int(math.Ceil(q*float64(len(seg)))) - 1
			vals[b][i] = seg[min(max(r, 0), len(seg)-1)]
		}
	}
	return vals, ok
}

// binMid is the x position of bin b's middle, clamped to the axis.
func (p *plotter) binMid(b int) float64 { return p.x(int64(b)*p.bin + p.bin/2) }

// quantilePanel draws panel (b): p50, p95, p99 and max latency of all
// client completions per time bin, on panel (a)'s log scale. A bin with
// no completions breaks the lines rather than drawing a zero.
func (p *plotter) quantilePanel() {
	p.printf(`<g id="panel-quantiles">` + "\n")
	p.printf(`<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", plotLeft, quTop, plotRight-plotLeft, quBot-quTop, panelFrame)
	p.textEl(plotLeft, quTop-8, ` font-size="13"`, "(b) latency quantiles of all client ops per "+fmtDuration(p.bin)+" bin (ms, log scale)")
	x := float64(plotRight - 4*62)
	for _, q := range quantiles {
		p.printf(`<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s" stroke-width="2"/>`, num(x), quTop-12, num(x+18), quTop-12, q.colour)
		p.textEl(x+22, quTop-8, "", q.name)
		x += 62
	}
	p.printf("\n")
	if len(p.points) == 0 {
		p.emptyPanel(quTop, quBot)
		p.printf("</g>\n")
		return
	}
	p.logAxis("axis-quantiles", quTop, quBot)
	qs := make([]float64, len(quantiles))
	for i, q := range quantiles {
		qs[i] = q.q
	}
	vals, ok := binQuantiles(p.points, p.bin, p.nb, qs)
	for i, q := range quantiles {
		p.printf(`<path class="series" data-series="%s" fill="none" stroke="%s" stroke-width="1.5" stroke-linejoin="round" d="`, q.name, q.colour)
		b := p.buf[:0]
		pen := false
		for k := 0; k < p.nb; k++ {
			if !ok[k] {
				pen = false
				continue
			}
			if pen {
				b = append(b, 'L')
			} else {
				b = append(b, 'M')
			}
			pen = true
			b = strconv.AppendFloat(b, p.binMid(k), 'f', 1, 64)
			b = append(b, ' ')
			b = strconv.AppendFloat(b, p.logY(latencyMs(vals[k][i]), quTop, quBot), 'f', 1, 64)
		}
		p.buf = b
		p.write(b)
		p.printf("\"/>\n")
	}
	p.printf("</g>\n")
}

// rateCounts counts completions per (function, outcome) series per bin:
// counts[(f*numOutcomes+outcome)*nb + bin].
func rateCounts(points []point, nf int, bin int64, nb int) []int {
	counts := make([]int, nf*int(numOutcomes)*nb)
	for _, pt := range points {
		counts[(int(pt.f)*int(numOutcomes)+int(pt.out))*nb+int(pt.t/bin)]++
	}
	return counts
}

// ratePanel draws panel (c): completions per second per function and
// outcome, one line per series that has any, and the RF8 windows.
func (p *plotter) ratePanel() {
	p.printf(`<g id="panel-rate">` + "\n")
	p.printf(`<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", plotLeft, rateTop, plotRight-plotLeft, rateBot-rateTop, panelFrame)
	p.textEl(plotLeft, rateTop-8, ` font-size="13"`, "(c) rate per op and outcome (completions/s, "+fmtDuration(p.bin)+" bins): colour is the op, dash the outcome")
	counts := rateCounts(p.points, len(p.fs), p.bin, p.nb)
	perSec := 1e9 / float64(p.bin)
	top := 1.0
	for _, c := range counts {
		top = math.Max(top, float64(c)*perSec)
	}
	top = float64(niceStep(int64(math.Ceil(top))))
	y := func(v float64) float64 { return rateBot - v/top*(rateBot-rateTop) }
	p.printf(`<g class="axis" id="axis-rate">`)
	for _, v := range []float64{0, top / 2, top} {
		yy := num(y(v))
		p.printf(`<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="%s"/>`, plotLeft, yy, plotRight, yy, gridColour)
		p.printf(`<text x="%d" y="%s" text-anchor="end" dy="4">%s</text>`, plotLeft-4, yy, strconv.FormatFloat(v, 'g', -1, 64))
	}
	p.printf(`<text transform="translate(%d %d) rotate(-90)" text-anchor="middle">per second</text>`, plotLeft-46, (rateTop+rateBot)/2)
	p.printf("</g>\n")
	if len(p.points) == 0 {
		p.emptyPanel(rateTop, rateBot)
	}
	for s := 0; s < len(p.fs)*int(numOutcomes); s++ {
		row := counts[s*p.nb : (s+1)*p.nb]
		if !slices.ContainsFunc(row, func(c int) bool { return c > 0 }) {
			continue
		}
		f, out := s/int(numOutcomes), outcome(s%int(numOutcomes))
		dash := ""
		if outcomeDash[out] != "" {
			dash = ` stroke-dasharray="` + outcomeDash[out] + `"`
		}
		p.printf(`<path class="series" data-series="%s %s" fill="none" stroke="%s" stroke-width="1.4"%s stroke-linejoin="round" d="`, xmlAttr(p.fs[f]), outcomeNames[out], palette[f%len(palette)], dash)
		b := p.buf[:0]
		for k, c := range row {
			if k == 0 {
				b = append(b, 'M')
			} else {
				b = append(b, 'L')
			}
			b = strconv.AppendFloat(b, p.binMid(k), 'f', 1, 64)
			b = append(b, ' ')
			b = strconv.AppendFloat(b, y(float64(c)*perSec), 'f', 1, 64)
		}
		p.buf = b
		p.write(b)
		p.printf("\"/>\n")
	}
	p.recoveryWindows()
	p.printf("</g>\n")
}

// recoveryWindows brackets on panel (c) the two windows RF8 compared:
// before the first fault and after the last heal.
func (p *plotter) recoveryWindows() {
	r := p.in.Recovery
	if r == nil {
		return
	}
	ln := newLanes(2)
	for _, w := range []struct {
		span         Span
		label, which string
	}{{r.Before, r.BeforeLabel, "RF8 before"}, {r.After, r.AfterLabel, "RF8 after"}} {
		label := w.label
		if label == "" {
			label = w.which
		}
		x0, x1 := p.x(w.span.Start), p.x(max(w.span.End, w.span.Start))
		x1 = max(x1, x0+1)
		width := textWidth(label, 10)
		lx := labelX(x0, width)
		by := float64(rateTop + 6 + ln.place(lx, width)*24)
		p.printf(`<g class="rf8">`)
		p.titleEl(label + ": the window " + fmtDuration(max(w.span.Start, 0)) + " to " + fmtDuration(max(w.span.End, 0)) + " that the recovery audit (RF8) judged")
		p.printf(`<rect x="%s" y="%d" width="%s" height="%d" fill="%s" fill-opacity="0.08"/>`, num(x0), rateTop, num(x1-x0), rateBot-rateTop, rf8Colour)
		p.printf(`<path d="M%s %sV%sH%sV%s" fill="none" stroke="%s" stroke-width="1.6"/>`, num(x0), num(by+6), num(by), num(x1), num(by+6), rf8Colour)
		p.textEl(lx, by+17, ` font-size="10" fill="`+rf8Colour+`" `+labelHalo, label)
		p.printf("</g>\n")
	}
}

// latencyMs is a latency in ms for a log axis: a zero latency (same-ns
// completion) is drawn at 1µs instead of -Inf.
func latencyMs(ns int64) float64 { return math.Max(float64(ns)/1e6, 1e-3) }

// throughputBin is the bin width for a run of tMax ns: a second, as the
// unit the rate panel reports, widened so a long run has at most
// maxThroughputBin bins, narrowed so a run under 40s still has 20 to 40
// (a quantile needs enough bins to show a fault's shape).
func throughputBin(tMax int64) int64 {
	const second = int64(1e9)
	if tMax < 40*second {
		return niceStep(tMax/40 + 1)
	}
	return max(second, niceStep(tMax/maxThroughputBin+1))
}

// timeAxis draws the shared x ticks under panel (c), faint gridlines
// through all panels, and a labelled tick per anomalous op.
func (p *plotter) timeAxis() {
	p.printf(`<g class="axis" id="axis-time">` + "\n")
	step := niceStep(p.tMax/8 + 1)
	for t := int64(0); t <= p.tMax; t += step {
		xx := num(p.x(t))
		p.printf(`<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s"/>`, xx, latTop, xx, rateBot, gridColour)
		p.printf(`<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", xx, rateBot+14, fmtDuration(t))
		if t > math.MaxInt64-step {
			break
		}
	}
	p.printf(`<text x="%d" y="%d" text-anchor="middle">time since start</text>`+"\n", (plotLeft+plotRight)/2, rateBot+28)
	ln := newLanes(tickLanes)
	for i, m := range p.marks {
		xx := p.x(m.t)
		p.printf(`<g class="anomaly-tick">`)
		p.titleEl(m.title)
		p.printf(`<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s" stroke-opacity="0.7" stroke-dasharray="3 3"/>`, num(xx), latTop, num(xx), rateBot, anomColour)
		p.printf(`<path d="M%s %dl-4 8h8z" fill="%s"/>`, num(xx), rateBot+31, anomColour)
		if i < maxTickLabels {
			width := textWidth(m.label, 10)
			lx := max(plotLeft, min(xx-width/2, plotRight-width))
			p.textEl(lx, float64(tickLaneY+ln.place(lx, width)*12), ` font-size="10" font-weight="bold" fill="`+anomColour+`"`, m.label)
		}
		p.printf("</g>\n")
	}
	p.printf("</g>\n")
}

// legend names the op colours, the outcome markers and line styles, and
// the bands, rings and brackets.
func (p *plotter) legend() {
	p.printf(`<g id="legend">` + "\n")
	y := float64(legendY)
	p.textEl(plotLeft, y, ` font-weight="bold"`, "op:")
	x := float64(plotLeft + 26)
	for i, f := range p.fs {
		w := textWidth(f, 11) + 24
		if x+w > plotRight-60 {
			p.textEl(x, y, "", fmt.Sprintf("+%d more", len(p.fs)-i))
			break
		}
		p.printf(`<rect x="%s" y="%s" width="10" height="10" fill="%s"/>`, num(x), num(y-9), palette[i%len(palette)])
		p.textEl(x+13, y, "", f)
		x += w
	}
	y += 18
	p.textEl(plotLeft, y, ` font-weight="bold"`, "outcome:")
	x = plotLeft + 64
	for out := outcome(0); out < numOutcomes; out++ {
		p.printf(`<path fill="none" stroke="#343a40" %s d="%s"/>`, markerStyle[out], appendMarker(nil, out, x+4, y-4))
		dash := ""
		if outcomeDash[out] != "" {
			dash = ` stroke-dasharray="` + outcomeDash[out] + `"`
		}
		p.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#343a40" stroke-width="1.4"%s/>`, num(x+12), num(y-4), num(x+36), num(y-4), dash)
		name := outcomeNames[out]
		switch out {
		case outRefused:
			name = "refused (expected failure)"
		case outFail:
			name = "fail (error)"
		case outInfo:
			name = "info (unknown)"
		}
		p.textEl(x+40, y, "", name)
		x += 40 + textWidth(name, 11) + 14
	}
	p.printf(`<rect x="%s" y="%s" width="14" height="10" %s/>`, num(x), num(y-9), strings.Replace(bandFill, "0.12", "0.3", 1))
	p.textEl(x+17, y, "", "fault")
	x += 52
	p.printf(`<rect x="%s" y="%s" width="14" height="10" fill="url(#hatch)"/>`, num(x), num(y-9))
	p.textEl(x+17, y, "", "not landed")
	x += 82
	p.printf(`<circle cx="%s" cy="%s" r="4" fill="none" stroke="#000" stroke-width="1.4"/><circle cx="%s" cy="%s" r="6.5" fill="none" stroke="%s" stroke-width="1.4"/>`, num(x+6), num(y-4), num(x+6), num(y-4), anomColour)
	p.textEl(x+16, y, "", "anomalous op")
	x += 96
	p.printf(`<rect x="%s" y="%s" width="14" height="10" fill="%s" fill-opacity="0.25" stroke="%s"/>`, num(x), num(y-9), rf8Colour, rf8Colour)
	p.textEl(x+17, y, "", "RF8 window")
	p.printf("</g>\n")
}

// captions say what the plot left out or could not place.
func (p *plotter) captions() {
	var lines []string
	if stride := p.stride(); stride > 1 {
		shown := (len(p.points) + stride - 1) / stride
		lines = append(lines, fmt.Sprintf("scatter sampled: every %d-th completion, %d of %d shown (anomalous ops always)", stride, shown, len(p.points)))
	}
	if len(p.fs) > len(palette) {
		lines = append(lines, fmt.Sprintf("%d op types share %d colours", len(p.fs), len(palette)))
	}
	if len(p.marks) > maxTickLabels {
		lines = append(lines, fmt.Sprintf("%d anomalous ops: the first %d ticks labelled, every tick names its op on hover", len(p.marks), maxTickLabels))
	}
	if len(p.missing) > 0 {
		ids := make([]string, 0, len(p.missing))
		for _, m := range p.missing[:min(len(p.missing), 10)] {
			ids = append(ids, "#"+strconv.FormatInt(m, 10))
		}
		lines = append(lines, plural.Count(len(p.missing), "anomalous op")+" not in this history: "+strings.Join(ids, " "))
	}
	for i, l := range lines {
		p.textEl(plotLeft, float64(captionY+i*13), ` class="caption" fill="`+faintColour+`"`, l)
	}
}

// niceStep rounds ns up to 1, 2 or 5 times a power of ten.
func niceStep(ns int64) int64 {
	step := int64(1)
	for {
		for _, m := range []int64{1, 2, 5} {
			if step*m >= ns {
				return step * m
			}
		}
		if step > math.MaxInt64/100 {
			return ns
		}
		step *= 10
	}
}

// fmtDuration renders a tick label from ns in the largest unit that keeps
// it short: "0", "250ms", "1.5s", "90s".
func fmtDuration(ns int64) string {
	switch {
	case ns == 0:
		return "0"
	case ns < 1e3:
		return strconv.FormatInt(ns, 10) + "ns"
	case ns < 1e6:
		return strconv.FormatFloat(float64(ns)/1e3, 'g', 4, 64) + "µs"
	case ns < 1e9:
		return strconv.FormatFloat(float64(ns)/1e6, 'g', 4, 64) + "ms"
	}
	return strconv.FormatFloat(float64(ns)/1e9, 'g', 6, 64) + "s"
}
