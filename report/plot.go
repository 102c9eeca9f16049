package report

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/faultline/faultline/history"
)

// Window is one fault window to shade on a plot. Callers convert from
// nemesis.FaultWindows so this package need not import the nemesis builtins.
type Window struct {
	Name       string // the fault, e.g. "start-partition"
	Start, End int64  // ns since the run started; End < Start means never healed
	Landed     bool   // false draws the window hatched and labelled "not landed"
}

// MaxScatter caps the latency scatter; larger histories are sampled by a
// fixed stride so the file stays small and the output deterministic.
const MaxScatter = 20_000

// Plot geometry in SVG user units. Both panels share the x range.
const (
	plotW, plotH     = 960, 600
	plotLeft         = 80
	plotRight        = 940
	latTop, latBot   = 50, 320
	thrTop, thrBot   = 360, 530
	captionY         = 585
	maxThroughputBin = 200 // bins on the throughput panel at most
)

// Colours per completion type, shared by the scatter, the lines and the legend.
var typeColours = [...]struct {
	t      history.Type
	colour string
}{{history.OK, "#2b8a3e"}, {history.Fail, "#c92a2a"}, {history.Info, "#e67700"}}

// point is one client completion: when it completed and how long it took.
type point struct {
	t, lat int64
	kind   uint8 // index into typeColours
}

// PlotSVG writes one self-contained SVG of a history: (a) the latency of
// every client completion on a log scale, (b) completions per second by type,
// with the fault windows shaded across both. A history without timed ops
// renders as a labelled empty plot rather than failing.
func PlotSVG(w io.Writer, ops []history.Op, windows []Window) error {
	bw := bufio.NewWriter(w)
	p := newPlotter(bw, ops, windows)
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
	points  []point
	windows []Window
	tMax    int64 // end of the x axis, ns
}

func newPlotter(w *bufio.Writer, ops []history.Op, windows []Window) *plotter {
	p := &plotter{w: w, windows: windows, points: make([]point, 0, len(ops)/2)}
	invoked := make(map[int]int64)
	for i := range ops {
		op := &ops[i]
		p.tMax = max(p.tMax, op.Time)
		if op.IsNemesis() {
			continue
		}
		if op.Type == history.Invoke {
			invoked[op.Process] = op.Time
			continue
		}
		start, ok := invoked[op.Process]
		if !ok {
			continue // a completion without its invocation has no latency
		}
		delete(invoked, op.Process)
		for k, tc := range typeColours {
			if tc.t == op.Type {
				// Clamp: a negative time is bad input, not a reason to index out of range.
				p.points = append(p.points, point{t: max(op.Time, 0), lat: max(op.Time-start, 0), kind: uint8(k)})
			}
		}
	}
	for _, win := range windows {
		p.tMax = max(p.tMax, win.End, win.Start)
	}
	return p
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

func (p *plotter) render() {
	p.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", plotW, plotH, plotW, plotH)
	p.printf(`<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="8" stroke="#868e96" stroke-width="2"/></pattern></defs>` + "\n")
	p.printf(`<rect width="%d" height="%d" fill="white"/>`+"\n", plotW, plotH)
	if p.tMax <= 0 {
		p.printf(`<text x="%d" y="%d" text-anchor="middle" font-size="16">no timed ops: nothing to plot</text>`+"\n", plotW/2, plotH/2)
		p.printf("</svg>\n")
		return
	}
	p.shadeWindows()
	p.latencyPanel()
	p.throughputPanel()
	p.timeAxis()
	p.legend()
	p.printf("</svg>\n")
}

// x maps ns since start to the shared horizontal axis.
func (p *plotter) x(t int64) float64 {
	return plotLeft + float64(t)/float64(p.tMax)*(plotRight-plotLeft)
}

// num appends v with one decimal: enough for screen units, and stable.
func (p *plotter) num(v float64) string {
	p.buf = strconv.AppendFloat(p.buf[:0], v, 'f', 1, 64)
	return string(p.buf)
}

// shadeWindows draws each fault window across both panels, labelled.
func (p *plotter) shadeWindows() {
	for _, win := range p.windows {
		end := win.End
		if end < win.Start {
			end = p.tMax
		}
		x0, x1 := p.x(max(win.Start, 0)), p.x(max(end, 0))
		fill, label := `fill="#fa5252" fill-opacity="0.12"`, win.Name
		if !win.Landed {
			fill, label = `fill="url(#hatch)" fill-opacity="0.5"`, win.Name+" (not landed)"
		}
		p.printf(`<rect x="%s" y="%d" width="%s" height="%d" %s/>`+"\n", p.num(x0), latTop, p.num(max(x1-x0, 1)), thrBot-latTop, fill)
		p.printf(`<text x="%s" y="%d" font-size="10" fill="#495057">`, p.num(x0+2), latTop-4)
		p.text(label)
		p.printf("</text>\n")
	}
}

// latencyPanel draws panel (a): a log-scale scatter in milliseconds.
func (p *plotter) latencyPanel() {
	p.printf(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#343a40"/>`+"\n", plotLeft, latTop, plotRight-plotLeft, latBot-latTop)
	p.printf(`<text x="%d" y="%d" font-size="13">(a) latency of client completions (ms, log scale)</text>`+"\n", plotLeft, latTop-20)
	if len(p.points) == 0 {
		p.printf(`<text x="%d" y="%d" text-anchor="middle">no client completions</text>`+"\n", (plotLeft+plotRight)/2, (latTop+latBot)/2)
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range p.points {
		l := latencyMs(pt.lat)
		lo, hi = math.Min(lo, l), math.Max(hi, l)
	}
	dLo, dHi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if dHi <= dLo {
		dHi = dLo + 1
	}
	y := func(ms float64) float64 {
		return latBot - (math.Log10(ms)-dLo)/(dHi-dLo)*(latBot-latTop)
	}
	for d := dLo; d <= dHi; d++ {
		yy := y(math.Pow(10, d))
		p.printf(`<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#dee2e6"/>`, plotLeft, p.num(yy), plotRight, p.num(yy))
		p.printf(`<text x="%d" y="%s" text-anchor="end">%s</text>`+"\n", plotLeft-4, p.num(yy+4), strconv.FormatFloat(math.Pow(10, d), 'g', -1, 64))
	}
	stride := (len(p.points) + MaxScatter - 1) / MaxScatter
	for k, tc := range typeColours {
		p.printf(`<g fill="%s" fill-opacity="0.6">`, tc.colour)
		for i := 0; i < len(p.points); i += stride {
			if pt := p.points[i]; int(pt.kind) == k {
				// The hot loop: appended by hand, as printf would box and allocate per point.
				b := append(p.buf[:0], `<circle cx="`...)
				b = strconv.AppendFloat(b, p.x(pt.t), 'f', 1, 64)
				b = append(b, `" cy="`...)
				b = strconv.AppendFloat(b, y(latencyMs(pt.lat)), 'f', 1, 64)
				p.buf = append(b, `" r="1.5"/>`...)
				p.write(p.buf)
			}
		}
		p.printf("</g>\n")
	}
	if stride > 1 {
		shown := (len(p.points) + stride - 1) / stride
		p.printf(`<text x="%d" y="%d" fill="#495057">scatter sampled: every %d-th completion, %d of %d shown</text>`+"\n", plotLeft, captionY, stride, shown, len(p.points))
	}
}

// latencyMs is a latency in ms for a log axis: a zero latency (same-ns
// completion) is drawn at 1µs instead of -Inf.
func latencyMs(ns int64) float64 { return math.Max(float64(ns)/1e6, 1e-3) }

// throughputPanel draws panel (b): completions per second by type as lines.
func (p *plotter) throughputPanel() {
	p.printf(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#343a40"/>`+"\n", plotLeft, thrTop, plotRight-plotLeft, thrBot-thrTop)
	bin := throughputBin(p.tMax)
	nb := int(p.tMax/bin) + 1
	counts := make([]int, nb*len(typeColours))
	for _, pt := range p.points {
		counts[int(pt.t/bin)*len(typeColours)+int(pt.kind)]++
	}
	perSec := 1e9 / float64(bin)
	top := 1.0
	for _, c := range counts {
		top = math.Max(top, float64(c)*perSec)
	}
	top = float64(niceStep(int64(math.Ceil(top))))
	p.printf(`<text x="%d" y="%d" font-size="13">(b) throughput (completions/s, bins of %s)</text>`+"\n", plotLeft, thrTop-8, fmtDuration(bin))
	for _, v := range []float64{0, top / 2, top} {
		yy := thrBot - v/top*(thrBot-thrTop)
		p.printf(`<text x="%d" y="%s" text-anchor="end">%s</text>`+"\n", plotLeft-4, p.num(yy+4), strconv.FormatFloat(v, 'g', -1, 64))
	}
	for k, tc := range typeColours {
		p.printf(`<polyline fill="none" stroke="%s" stroke-width="1.5" points="`, tc.colour)
		for b := 0; b < nb; b++ {
			mid := int64(b)*bin + bin/2
			v := float64(counts[b*len(typeColours)+k]) * perSec
			p.printf("%s,%s ", p.num(p.x(min(mid, p.tMax))), p.num(thrBot-v/top*(thrBot-thrTop)))
		}
		p.printf("\"/>\n")
	}
}

// throughputBin is the bin width for a run of tMax ns: a second, as the
// unit the panel reports, widened so a long run has at most
// maxThroughputBin bins, narrowed so a run under 20s still has ~20.
func throughputBin(tMax int64) int64 {
	const second = int64(1e9)
	if tMax < 20*second {
		return niceStep(tMax/20 + 1)
	}
	return max(second, niceStep(tMax/maxThroughputBin+1))
}

// timeAxis draws the shared x ticks under panel (b) and faint gridlines
// through both panels.
func (p *plotter) timeAxis() {
	step := niceStep(p.tMax/8 + 1)
	for t := int64(0); t <= p.tMax; t += step {
		xx := p.num(p.x(t))
		p.printf(`<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#dee2e6"/>`, xx, latTop, xx, thrBot)
		p.printf(`<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", xx, thrBot+14, fmtDuration(t))
	}
	p.printf(`<text x="%d" y="%d" text-anchor="middle">time since start</text>`+"\n", (plotLeft+plotRight)/2, thrBot+30)
}

// legend names the colours and the window shading.
func (p *plotter) legend() {
	x := plotRight - 330
	for _, tc := range typeColours {
		p.printf(`<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, latTop-24, tc.colour, x+7, latTop-20, tc.t)
		x += 50
	}
	p.printf(`<rect x="%d" y="%d" width="10" height="10" fill="#fa5252" fill-opacity="0.25"/><text x="%d" y="%d">fault</text>`+"\n", x, latTop-29, x+13, latTop-20)
	x += 50
	p.printf(`<rect x="%d" y="%d" width="10" height="10" fill="url(#hatch)"/><text x="%d" y="%d">not landed</text>`+"\n", x, latTop-29, x+13, latTop-20)
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
