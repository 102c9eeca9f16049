package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
)

const ms = int64(1e6)

// syntheticHistory is two clients over 10s with a partition from 3s to 6s:
// latencies grow during it and some ops fail or time out. Process 0 reads,
// process 1 does cas, every third of which is refused outside the fault.
func syntheticHistory() []history.Op {
	var ops []history.Op
	add := func(t int64, p int, ty history.Type, f string, v, err any) {
		ops = append(ops, history.Op{Index: int64(len(ops)), Time: t, Process: p, Type: ty, F: f, Key: "k", Value: v, Error: err})
	}
	for i := int64(0); i < 40; i++ {
		t := i * 250 * ms
		for p := 0; p < 2; p++ {
			lat, ty, f := int64(2+p)*ms, history.OK, "read"
			var v, err any
			if p == 1 {
				f, v = "cas", []any{int64(i % 3), int64(i%3 + 1)}
				if i%3 == 0 {
					ty, err = history.Fail, "cas: value did not match"
				}
			}
			if t >= 3000*ms && t < 6000*ms {
				lat = int64(80+10*i) * ms
				switch (i + int64(p)) % 3 {
				case 0:
					ty, err = history.Fail, "connection refused"
				case 1:
					ty, err = history.Info, "timeout"
				}
			}
			out := v
			if f == "read" && ty == history.OK {
				out = i % 5
			}
			add(t+int64(p)*ms, p, history.Invoke, f, v, nil)
			add(t+int64(p)*ms+lat, p, ty, f, out, err)
		}
		if i == 12 {
			add(t, history.NemesisProcess, history.Invoke, "start-partition", nil, nil)
			add(t+ms, history.NemesisProcess, history.OK, "start-partition", nil, nil)
		}
	}
	return ops
}

// refusedCAS is the refusal rule of the register workloads: a cas whose
// precondition did not hold failed as the workload expected.
func refusedCAS(op history.Op) bool {
	return op.F == "cas" && op.Error == "cas: value did not match"
}

func plotString(t *testing.T, ops []history.Op, in PlotInput) string {
	t.Helper()
	var b bytes.Buffer
	if err := PlotSVG(&b, ops, in); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, b.String())
	return b.String()
}

// checkSVG asserts the output is well-formed XML with no NaN or Inf in it.
func checkSVG(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed: %v", err)
		}
	}
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(svg, bad) {
			t.Fatalf("SVG contains %s", bad)
		}
	}
}

// svgNode is one element of a parsed SVG, for structural assertions.
type svgNode struct {
	name  string
	attr  map[string]string
	kids  []*svgNode
	text  string // character data directly inside
	chars string // all character data inside, recursively
}

func parseSVG(t *testing.T, svg string) *svgNode {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	root := &svgNode{name: "#root"}
	stack := []*svgNode{root}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &svgNode{name: tok.Name.Local, attr: map[string]string{}}
			for _, a := range tok.Attr {
				n.attr[a.Name.Local] = a.Value
			}
			top := stack[len(stack)-1]
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			stack[len(stack)-1].text += string(tok)
			for _, n := range stack {
				n.chars += string(tok)
			}
		}
	}
	return root
}

// all returns the elements under n (n included) that match.
func (n *svgNode) all(match func(*svgNode) bool) []*svgNode {
	var out []*svgNode
	if match(n) {
		out = append(out, n)
	}
	for _, k := range n.kids {
		out = append(out, k.all(match)...)
	}
	return out
}

func byClass(c string) func(*svgNode) bool {
	return func(n *svgNode) bool { return slices.Contains(strings.Fields(n.attr["class"]), c) }
}

func byID(id string) func(*svgNode) bool {
	return func(n *svgNode) bool { return n.attr["id"] == id }
}

// one returns the single element under n that matches, failing otherwise.
func (n *svgNode) one(t *testing.T, what string, match func(*svgNode) bool) *svgNode {
	t.Helper()
	got := n.all(match)
	if len(got) != 1 {
		t.Fatalf("%d elements %s, want 1", len(got), what)
	}
	return got[0]
}

// title is the <title> text of a group.
func (n *svgNode) title() string {
	for _, k := range n.kids {
		if k.name == "title" {
			return k.text
		}
	}
	return ""
}

// seriesNames lists data-series of the series paths under n.
func (n *svgNode) seriesNames() []string {
	var out []string
	for _, s := range n.all(byClass("series")) {
		out = append(out, s.attr["data-series"])
	}
	return out
}

func TestPlotSVGGolden(t *testing.T) {
	in := PlotInput{
		Windows: []Window{
			{Name: "start-partition", Start: 3001 * ms, End: 6000 * ms, Landed: true, Shape: "n1 | n2 n3"},
			{Name: "kill", Start: 7000 * ms, End: 8000 * ms, Landed: false, Victims: []string{"<n2>"}},
			{Name: "pause", Start: 9000 * ms, End: -1, Landed: true, Victims: []string{"n1", "n3"}},
		},
		Anomalous: []int64{8, 31}, // an invocation, and a completion
		Refused:   refusedCAS,
		Recovery:  &RecoverySpans{Before: Span{0, 3000 * ms}, After: Span{6000 * ms, 7000 * ms}, BeforeLabel: "RF8 before: 8 ok/s", AfterLabel: "RF8 after: 8 ok/s"},
	}
	svg := plotString(t, syntheticHistory(), in)
	for _, want := range []string{"(a) latency", "(b) latency quantiles", "(c) rate", "partition n1 | n2 n3", "kill &lt;n2&gt; (not landed)", "pause n1 n3 (never healed)", `url(#hatch)`, ">8s<", "RF8 before: 8 ok/s", "#8 p0 read -&gt; 2 @&#34;k&#34;: ok", "#30 p1 cas 1 -&gt; 2"} {
		if !strings.Contains(svg, want) {
			t.Errorf("plot lacks %q", want)
		}
	}
	if strings.Contains(svg, "sampled") {
		t.Error("a small history must not be sampled")
	}
	root := parseSVG(t, svg)
	lat := root.one(t, "panel-latency", byID("panel-latency"))
	// reads end ok, fail or info; cas also refused. Sorted F: cas before read.
	wantSeries := []string{"cas ok", "cas refused", "cas fail", "cas info", "read ok", "read fail", "read info"}
	if got := lat.seriesNames(); !slices.Equal(got, wantSeries) {
		t.Errorf("latency series %q, want %q", got, wantSeries)
	}
	rate := root.one(t, "panel-rate", byID("panel-rate"))
	if got := rate.seriesNames(); !slices.Equal(got, wantSeries) {
		t.Errorf("rate series %q, want %q", got, wantSeries)
	}
	if got := root.one(t, "panel-quantiles", byID("panel-quantiles")).seriesNames(); !slices.Equal(got, []string{"p50", "p95", "p99", "max"}) {
		t.Errorf("quantile series %q", got)
	}
	checkGolden(t, "synthetic.plot.golden.svg", []byte(svg))
}

// demoHistory is the history of a real failing session: the stale-reads
// demo (seed 7) against three demo-store nodes, which a partition, a
// kill of n3 and a pause of n2 hit; its linearizability verdict rests on
// op #88->#89, a read on key "2" before any fault.
func demoHistory(t testing.TB) []history.Op {
	t.Helper()
	f, err := history.ReadFile("testdata/demo-stale-reads.history.jsonl", history.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	return f.Ops
}

// demoInput is what the session knew about that run: its fault windows
// (nemesis.FaultWindows of the history), the anomaly, and the windows RF8
// compared with the numbers its evidence gave.
func demoInput() PlotInput {
	return PlotInput{
		Windows: []Window{
			{Name: "start-partition", Start: 1000702561, End: 3001112575, Landed: true, Shape: "n1 | n2 n3"},
			{Name: "kill", Start: 4001858130, End: 6000198672, Landed: true, Victims: []string{"n3"}},
			{Name: "pause", Start: 7101052304, End: 9000859988, Landed: true, Victims: []string{"n2"}},
		},
		Anomalous: []int64{88, 89},
		Refused:   refusedCAS,
		Recovery: &RecoverySpans{
			Before: Span{0, 1000546488}, After: Span{9004158795, 12001034770},
			BeforeLabel: "RF8 before: 98.9 ops/s, 100% answered, median 1.64ms",
			AfterLabel:  "RF8 after: 110.7 ops/s, 100% answered, median 1.73ms",
		},
	}
}

func TestPlotSVGRecordedHistory(t *testing.T) {
	ops := demoHistory(t)
	svg := plotString(t, ops, demoInput())
	checkGolden(t, "demo-stale-reads.plot.golden.svg", []byte(svg))
	root := parseSVG(t, svg)

	for _, id := range []string{"panel-latency", "panel-quantiles", "panel-rate", "legend"} {
		root.one(t, id, byID(id))
	}
	bands := root.all(byClass("fault-band"))
	wantBands := []string{"partition n1 | n2 n3", "kill n3", "pause n2"}
	if len(bands) != len(wantBands) {
		t.Fatalf("%d fault bands, want %d", len(bands), len(wantBands))
	}
	for i, b := range bands {
		if !strings.HasPrefix(b.title(), wantBands[i]+": ") {
			t.Errorf("band %d title %q, want it to name %q", i, b.title(), wantBands[i])
		}
		if label := b.one(t, "band label", byClass("band-label")); label.text != wantBands[i] {
			t.Errorf("band %d label %q, want %q", i, label.text, wantBands[i])
		}
	}

	// #88 and #89 are one op: one ring, one tick, named as the checker names it.
	lat := root.one(t, "panel-latency", byID("panel-latency"))
	anoms := lat.all(byClass("anomaly"))
	if len(anoms) != 1 || !strings.HasPrefix(anoms[0].title(), `#88 p2 read -> 0 @2: ok`) {
		t.Fatalf("anomaly marks %d, first title %q", len(anoms), anoms[0].title())
	}
	ticks := root.one(t, "axis-time", byID("axis-time")).all(byClass("anomaly-tick"))
	if len(ticks) != 1 || !strings.Contains(ticks[0].chars, "#88") {
		t.Fatalf("%d anomaly ticks, want one labelled #88", len(ticks))
	}

	rf8 := root.one(t, "panel-rate", byID("panel-rate")).all(byClass("rf8"))
	if len(rf8) != 2 || !strings.Contains(rf8[0].chars, "RF8 before: 98.9 ops/s") || !strings.Contains(rf8[1].chars, "RF8 after: 110.7 ops/s") {
		t.Fatalf("rf8 windows: %d", len(rf8))
	}
	if n := len(root.all(byClass("axis"))); n != 4 { // latency, quantiles, rate, time
		t.Errorf("%d axes, want 4", n)
	}

	// Every (F, outcome) the history holds is a series on (a) and on (c).
	want := map[string]bool{}
	invoked := map[int]bool{}
	for _, op := range ops {
		if op.IsNemesis() {
			continue
		}
		if op.Type == history.Invoke {
			invoked[op.Process] = true
			continue
		}
		if !invoked[op.Process] {
			continue
		}
		delete(invoked, op.Process)
		out, _ := classify(&op, refusedCAS)
		want[op.F+" "+outcomeNames[out]] = true
	}
	for _, panel := range []string{"panel-latency", "panel-rate"} {
		got := root.one(t, panel, byID(panel)).seriesNames()
		if len(got) != len(want) {
			t.Errorf("%s: series %q, want the %d of %v", panel, got, len(want), want)
		}
		for _, s := range got {
			if !want[s] {
				t.Errorf("%s: series %q not in the history", panel, s)
			}
		}
	}
	if !want["cas refused"] || !want["cas fail"] {
		t.Error("the demo history should hold refused cas and failed cas apart")
	}
	// Every completion is drawn: the history is under MaxScatter.
	if got, want := latencyMarkers(lat), len(ops)/2-6; got < want-10 || got > want {
		t.Errorf("%d markers on the latency panel, want about %d client completions", got, want)
	}
}

// latencyMarkers counts the markers on panel (a): one subpath per marker
// (a cross has two moves).
func latencyMarkers(lat *svgNode) int {
	n := 0
	for _, s := range lat.all(byClass("series")) {
		moves := strings.Count(s.attr["d"], "M")
		if strings.HasSuffix(s.attr["data-series"], " fail") {
			moves = strings.Count(s.attr["d"], "l4 4m0-4")
		}
		n += moves
	}
	return n
}

func TestPlotSVGDegenerate(t *testing.T) {
	zero := []history.Op{{Process: 0, Type: history.Invoke}, {Process: 0, Type: history.OK}}
	tests := []struct {
		name string
		ops  []history.Op
		in   PlotInput
		want string
	}{
		{"empty", nil, PlotInput{}, "no timed ops"},
		{"all times zero", zero, PlotInput{}, "no timed ops"},
		{"zero-width window on zero times", zero, PlotInput{Windows: []Window{{Name: "kill", Landed: true}}}, "no timed ops"},
		{"only nemesis ops", []history.Op{{Time: 5 * ms, Process: history.NemesisProcess, Type: history.Invoke, F: "kill"}}, PlotInput{}, "no client completions"},
		{"completion without invoke", []history.Op{{Time: 5 * ms, Process: 3, Type: history.OK}}, PlotInput{}, "no client completions"},
		{"negative times", []history.Op{{Time: -5 * ms, Process: 1, Type: history.Invoke}, {Time: 2 * ms, Process: 1, Type: history.OK}, {Time: -1, Process: 2, Type: history.Invoke}, {Time: -1, Process: 2, Type: history.Fail}}, PlotInput{Windows: []Window{{Name: "x", Start: -10, End: -5}}, Recovery: &RecoverySpans{Before: Span{-5, -1}, After: Span{9, 3}}}, "(a) latency"},
		{"equal latencies", []history.Op{{Time: 0, Process: 1, Type: history.Invoke}, {Time: ms, Process: 1, Type: history.OK}}, PlotInput{}, "(c) rate"},
		{"anomaly of a pending op", []history.Op{{Index: 0, Time: ms, Process: 1, Type: history.Invoke, F: "write", Value: int64(3)}, {Index: 1, Time: 2 * ms, Process: 2, Type: history.Invoke, F: "read"}, {Index: 2, Time: 3 * ms, Process: 2, Type: history.OK, F: "read"}}, PlotInput{Anomalous: []int64{0}}, "#0 p1 write 3 (no completion: latency unknown)"},
		{"anomaly not in the history", zero[:1], PlotInput{Anomalous: []int64{99}, Windows: []Window{{Name: "kill", Start: 1, End: 2}}}, "1 anomalous op not in this history: #99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if svg := plotString(t, tt.ops, tt.in); !strings.Contains(svg, tt.want) {
				t.Errorf("plot lacks %q:\n%s", tt.want, svg)
			}
		})
	}
}

// bigHistory is n client ops (n/2 invocations and completions) over 16
// processes and three functions, one completion in ten failing.
func bigHistory(n int) []history.Op {
	ops := make([]history.Op, 0, n)
	fs := []string{"read", "write", "cas"}
	for i := 0; len(ops) < n; i++ {
		p, t := i%16, int64(i)*ms
		ty := history.OK
		if i%10 == 0 {
			ty = history.Fail
		}
		f := fs[i%3]
		ops = append(ops, history.Op{Index: int64(len(ops)), Time: t, Process: p, Type: history.Invoke, F: f},
			history.Op{Index: int64(len(ops) + 1), Time: t + int64(1+i%50)*ms, Process: p, Type: ty, F: f})
	}
	return ops
}

func TestPlotSVGSamplesBigHistories(t *testing.T) {
	ops := bigHistory(100_000)
	// Op 10 is completion 5: the stride of 3 skips it, the anomaly keeps it.
	in := PlotInput{Anomalous: []int64{11}, Windows: []Window{{Name: "kill", Start: 10_000 * ms, End: 20_000 * ms, Landed: true, Victims: []string{"n1"}}}}
	svg := plotString(t, ops, in)
	if len(svg) > 3<<20 {
		t.Errorf("a 100k-op plot is %d bytes, want well under 3 MB", len(svg))
	}
	lat := parseSVG(t, svg).one(t, "panel-latency", byID("panel-latency"))
	if n := latencyMarkers(lat); n != 16667+1 {
		t.Errorf("%d scatter markers, want 16667 sampled + 1 anomaly (cap %d)", n, MaxScatter)
	}
	if a := lat.all(byClass("anomaly")); len(a) != 1 || !strings.HasPrefix(a[0].title(), "#10 p5 cas") {
		t.Errorf("anomaly marks: %d", len(a))
	}
	if !strings.Contains(svg, "scatter sampled: every 3-th completion, 16667 of 50000 shown") {
		t.Error("sampling caption missing")
	}
	var again bytes.Buffer
	if err := PlotSVG(&again, ops, in); err != nil || again.String() != svg {
		t.Error("sampling is not deterministic")
	}
}

func TestPlotSVGWriteError(t *testing.T) {
	if err := PlotSVG(errWriter{}, syntheticHistory(), PlotInput{}); !errors.Is(err, errBroken) {
		t.Fatalf("error %v, want wrapped %v", err, errBroken)
	}
}

func TestWindowLabel(t *testing.T) {
	tests := []struct {
		w    Window
		want string
	}{
		{Window{Name: "start-partition", Shape: "n1 | n2 n3"}, "partition n1 | n2 n3"},
		{Window{Name: "kill", Victims: []string{"n2"}}, "kill n2"},
		{Window{Name: "pause", Victims: []string{"n1", "n3"}}, "pause n1 n3"},
		{Window{Name: "start", Victims: []string{"n1"}}, "start n1"},
		{Window{Name: "start-"}, "start-"},
		{Window{Name: "clock-skew"}, "clock-skew"},
		{Window{Name: "start-partition", Shape: "n1 | n2", Victims: []string{"n1"}}, "partition n1 | n2"},
	}
	for _, tt := range tests {
		if got := WindowLabel(tt.w); got != tt.want {
			t.Errorf("WindowLabel(%+v) = %q, want %q", tt.w, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		op      history.Op
		refused func(history.Op) bool
		want    outcome
		ok      bool
	}{
		{history.Op{Type: history.Invoke}, nil, 0, false},
		{history.Op{Type: history.OK}, nil, outOK, true},
		{history.Op{Type: history.Fail, F: "cas", Error: "cas: value did not match"}, nil, outFail, true},
		{history.Op{Type: history.Fail, F: "cas", Error: "cas: value did not match"}, refusedCAS, outRefused, true},
		{history.Op{Type: history.Fail, F: "cas", Error: "HTTP 503"}, refusedCAS, outFail, true},
		{history.Op{Type: history.Info, F: "cas", Error: "cas: value did not match"}, refusedCAS, outInfo, true},
		{history.Op{Type: history.OK}, func(history.Op) bool { return true }, outOK, true},
	}
	for i, tt := range tests {
		if got, ok := classify(&tt.op, tt.refused); got != tt.want || ok != tt.ok {
			t.Errorf("%d: classify = %v %v, want %v %v", i, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDescribeOp(t *testing.T) {
	inv := func(p int, f string, key, v any) *history.Op {
		return &history.Op{Index: 88, Time: 300 * ms, Process: p, Type: history.Invoke, F: f, Key: key, Value: v}
	}
	comp := func(ty history.Type, v, err any) *history.Op {
		return &history.Op{Index: 89, Time: 302 * ms, Type: ty, Value: v, Error: err}
	}
	tests := []struct {
		inv, comp *history.Op
		out       outcome
		want      string
	}{
		{inv(2, "read", "2", nil), comp(history.OK, int64(0), nil), outOK, `#88 p2 read -> 0 @"2": ok, completed #89 at 302ms after 2ms`},
		{inv(2, "read", nil, nil), comp(history.Info, nil, "timeout"), outInfo, `#88 p2 read -> ?: info ("timeout"), completed #89 at 302ms after 2ms`},
		{inv(1, "write", int64(5), int64(3)), comp(history.OK, int64(3), nil), outOK, `#88 p1 write 3 @5: ok, completed #89 at 302ms after 2ms`},
		{inv(4, "cas", int64(3), []any{int64(1), int64(2)}), comp(history.Fail, nil, "cas: value did not match"), outRefused, `#88 p4 cas 1 -> 2 @3: refused ("cas: value did not match"), completed #89 at 302ms after 2ms`},
		{inv(0, "txn", nil, []any{[]any{history.Keyword("r"), "x", nil}}), comp(history.OK, nil, nil), outOK, `#88 p0 txn [[:r "x" nil]]: ok, completed #89 at 302ms after 2ms`},
		{inv(history.NemesisProcess, "kill", nil, nil), nil, 0, `#88 nemesis kill`},
		{inv(3, "write", nil, int64(1)), nil, 0, `#88 p3 write 1`},
	}
	for _, tt := range tests {
		if got := describeOp(tt.inv, tt.comp, tt.out); got != tt.want {
			t.Errorf("describeOp = %q, want %q", got, tt.want)
		}
	}
}

func TestLanes(t *testing.T) {
	tests := []struct {
		name   string
		lanes  int
		labels [][2]float64 // x, width
		want   []int
	}{
		{"apart share a lane", 3, [][2]float64{{0, 50}, {60, 50}, {200, 10}}, []int{0, 0, 0}},
		{"overlapping stack", 3, [][2]float64{{0, 50}, {10, 50}, {20, 50}}, []int{0, 1, 2}},
		{"full lanes reuse the one that frees first", 2, [][2]float64{{0, 100}, {10, 30}, {20, 50}}, []int{0, 1, 1}},
		{"a gap under 4 units is not a gap", 2, [][2]float64{{0, 50}, {52, 10}}, []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLanes(tt.lanes)
			var got []int
			for _, lb := range tt.labels {
				got = append(got, l.place(lb[0], lb[1]))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("lanes %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBinQuantiles(t *testing.T) {
	pts := func(lats ...int64) []point {
		var out []point
		for i, l := range lats {
			out = append(out, point{t: int64(i % 2 * 10), lat: l}) // alternate bins 0 and 1
		}
		return out
	}
	qs := []float64{0.5, 0.95, 0.99, 1}
	tests := []struct {
		name string
		pts  []point
		want [][]int64 // per bin; nil = empty bin
	}{
		{"one op per bin", pts(7, 9), [][]int64{{7, 7, 7, 7}, {9, 9, 9, 9}, nil}},
		{"nearest rank", pts(1, 100, 2, 100, 3, 100, 4, 100), [][]int64{{2, 4, 4, 4}, {100, 100, 100, 100}, nil}},
		{"unsorted input", pts(5, 0, 1, 0, 3, 0, 2, 0, 4, 0), [][]int64{{3, 5, 5, 5}, {0, 0, 0, 0}, nil}},
		{"none", nil, [][]int64{nil, nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals, ok := binQuantiles(tt.pts, 10, 3, qs)
			for b, want := range tt.want {
				if (want != nil) != ok[b] || !slices.Equal(vals[b], want) {
					t.Errorf("bin %d: %v (ok %v), want %v", b, vals[b], ok[b], want)
				}
			}
		})
	}
}

func TestRateCounts(t *testing.T) {
	pts := []point{{t: 0, f: 0, out: outOK}, {t: 5, f: 0, out: outOK}, {t: 15, f: 1, out: outRefused}, {t: 25, f: 1, out: outInfo}}
	got := rateCounts(pts, 2, 10, 3)
	want := make([]int, 2*int(numOutcomes)*3)
	want[0] = 2                          // f0 ok, bin 0
	want[(1*int(numOutcomes)+1)*3+1] = 1 // f1 refused, bin 1
	want[(1*int(numOutcomes)+3)*3+2] = 1 // f1 info, bin 2
	if !slices.Equal(got, want) {
		t.Errorf("rateCounts = %v, want %v", got, want)
	}
}

func TestPlotSVGAnomalyPairing(t *testing.T) {
	ops := []history.Op{
		{Index: 0, Time: 1 * ms, Process: 1, Type: history.Invoke, F: "read"},
		{Index: 1, Time: 2 * ms, Process: 2, Type: history.Invoke, F: "write", Value: int64(1)},
		{Index: 2, Time: 3 * ms, Process: 1, Type: history.OK, F: "read", Value: int64(1)},
		{Index: 3, Time: 9 * ms, Process: 2, Type: history.OK, F: "write", Value: int64(1)},
	}
	tests := []struct {
		name      string
		anomalous []int64
		want      []string // titles' op names, in time order
	}{
		{"by invocation", []int64{0}, []string{"#0 p1 read -> 1"}},
		{"by completion", []int64{2}, []string{"#0 p1 read -> 1"}},
		{"both name one op", []int64{2, 0}, []string{"#0 p1 read -> 1"}},
		{"two ops in time order", []int64{3, 0}, []string{"#0 p1 read -> 1", "#1 p2 write 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := parseSVG(t, plotString(t, ops, PlotInput{Anomalous: tt.anomalous}))
			marks := root.all(byClass("anomaly"))
			ticks := root.all(byClass("anomaly-tick"))
			if len(marks) != len(tt.want) || len(ticks) != len(tt.want) {
				t.Fatalf("%d marks, %d ticks, want %d", len(marks), len(ticks), len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(marks[i].title(), w+":") || marks[i].title() != ticks[i].title() {
					t.Errorf("mark %d: %q, tick %q, want %q", i, marks[i].title(), ticks[i].title(), w)
				}
			}
		})
	}
}

func TestNiceStepAndDuration(t *testing.T) {
	steps := map[int64]int64{0: 1, 1: 1, 3: 5, 7: 10, 11: 20, 1_250_000_001: 2_000_000_000}
	for in, want := range steps {
		if got := niceStep(in); got != want {
			t.Errorf("niceStep(%d) = %d, want %d", in, got, want)
		}
	}
	durs := map[int64]string{0: "0", 500: "500ns", 1500: "1.5µs", 250 * ms: "250ms", 1500 * ms: "1.5s", 90_000 * ms: "90s"}
	for in, want := range durs {
		if got := fmtDuration(in); got != want {
			t.Errorf("fmtDuration(%d) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPlotSVG feeds arbitrary times, windows and anomalies: the plot must
// always be well-formed and free of NaN, never panic.
func FuzzPlotSVG(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(0), uint8(0), int64(0))
	f.Add(int64(1), int64(5e9), int64(2e9), int64(-1), uint8(1), int64(1))
	f.Add(int64(-7), int64(9e18), int64(-3), int64(9e18), uint8(2), int64(-4))
	f.Fuzz(func(t *testing.T, t0, t1, ws, we int64, kind uint8, anom int64) {
		types := []history.Type{history.OK, history.Fail, history.Info, history.Invoke}
		ops := []history.Op{{Index: 0, Time: t0, Process: 1, Type: history.Invoke, F: "cas"}, {Index: 1, Time: t1, Process: 1, Type: types[int(kind)%len(types)], F: "cas"}}
		in := PlotInput{
			Windows:   []Window{{Name: "w", Start: ws, End: we, Landed: kind%2 == 0, Victims: []string{"n1"}}},
			Anomalous: []int64{anom},
			Refused:   func(history.Op) bool { return kind%3 == 0 },
			Recovery:  &RecoverySpans{Before: Span{t0, ws}, After: Span{we, t1}},
		}
		var b bytes.Buffer
		if err := PlotSVG(&b, ops, in); err != nil {
			t.Fatal(err)
		}
		checkSVG(t, b.String())
	})
}

// BenchmarkPlotSVG draws a 100k-op history (50k completions over 100s,
// sampled to MaxScatter) and reports the plot's size.
func BenchmarkPlotSVG(b *testing.B) {
	ops := bigHistory(100_000)
	in := PlotInput{
		Windows:   []Window{{Name: "start-partition", Start: 20_000 * ms, End: 40_000 * ms, Landed: true, Shape: "n1 | n2 n3"}},
		Anomalous: []int64{501, 77_001},
		Recovery:  &RecoverySpans{Before: Span{0, 20_000 * ms}, After: Span{40_000 * ms, 50_000 * ms}},
	}
	var size countWriter
	if err := PlotSVG(&size, ops, in); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := PlotSVG(io.Discard, ops, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size), "svg-bytes")
}

// countWriter counts the bytes written to it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

func TestThroughputBin(t *testing.T) {
	tests := []struct{ tMax, want int64 }{
		{1, 1},
		{9753 * ms, 500 * ms},
		{19_000 * ms, 500 * ms},
		{20_000 * ms, 1000 * ms},
		{39_000 * ms, 1000 * ms},
		{150_000 * ms, 1000 * ms},
		{3_600_000 * ms, 20_000 * ms}, // an hour: 180 bins
	}
	for _, tt := range tests {
		if got := throughputBin(tt.tMax); got != tt.want {
			t.Errorf("throughputBin(%d) = %d, want %d", tt.tMax, got, tt.want)
		}
	}
}
