package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/nemesis"
)

// tlOps builds a history from compact rows; Index is the row's position.
type tlRow struct {
	t    int64
	p    int
	ty   history.Type
	f    string
	key  any
	val  any
	err  any
	node string
}

func tlOps(rows ...tlRow) []history.Op {
	ops := make([]history.Op, len(rows))
	for i, r := range rows {
		ops[i] = history.Op{Index: int64(i), Time: r.t, Process: r.p, Type: r.ty, F: r.f, Key: r.key, Value: r.val, Error: r.err, Node: r.node}
	}
	return ops
}

// tlBrief writes bars as "inv-comp:kind[start,end]" with a * when anomalous.
func tlBrief(ops []history.Op, bars []tlBar) string {
	var out []string
	for _, b := range bars {
		comp := "none"
		if b.comp >= 0 {
			comp = fmt.Sprint(ops[b.comp].Index)
		}
		s := fmt.Sprintf("%d-%s:%s[%d,%d]", ops[b.inv].Index, comp, tlClass[b.kind], b.start, b.end)
		if b.anomalous {
			s += "*"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestTimelinePair(t *testing.T) {
	const I, O, F, N = history.Invoke, history.OK, history.Fail, history.Info
	nem := history.NemesisProcess
	refused := func(op history.Op) bool { return op.Error == "did not match" }
	cases := []struct {
		name      string
		ops       []history.Op
		anomalous []int64
		want      string
	}{
		{"ok pair", tlOps(tlRow{t: 10, ty: I, f: "read", key: 1}, tlRow{t: 20, ty: O, f: "read", key: 1, val: int64(3)}),
			nil, "0-1:ok[10,20]"},
		{"orphan completion skipped", tlOps(tlRow{t: 5, p: 1, ty: O, f: "read"}, tlRow{t: 10, ty: I, f: "read"}, tlRow{t: 20, ty: F, f: "read"}),
			nil, "1-2:fail[10,20]"},
		{"info is unknown", tlOps(tlRow{t: 10, ty: I, f: "write"}, tlRow{t: 30, ty: N, f: "write"}),
			nil, "0-1:info[10,30]"},
		{"never completed is unknown", tlOps(tlRow{t: 10, ty: I, f: "write"}, tlRow{t: 15, p: 1, ty: I, f: "read"}, tlRow{t: 16, p: 1, ty: O, f: "read"}),
			nil, "0-none:info[10,10] 1-2:ok[15,16]"},
		{"second invoke leaves the first open", tlOps(tlRow{t: 10, ty: I, f: "write"}, tlRow{t: 20, ty: I, f: "read"}, tlRow{t: 30, ty: O, f: "read"}),
			nil, "0-none:info[10,10] 1-2:ok[20,30]"},
		{"refused apart from fail", tlOps(tlRow{t: 1, ty: I, f: "cas"}, tlRow{t: 2, ty: F, f: "cas", err: "did not match"}, tlRow{t: 3, ty: I, f: "cas"}, tlRow{t: 4, ty: F, f: "cas", err: "timeout"}),
			nil, "0-1:refused[1,2] 2-3:fail[3,4]"},
		{"nemesis ops are not bars", tlOps(tlRow{t: 1, p: nem, ty: I, f: "kill"}, tlRow{t: 2, ty: I, f: "read"}, tlRow{t: 3, p: nem, ty: O, f: "kill"}, tlRow{t: 4, ty: O, f: "read"}),
			nil, "1-3:ok[2,4]"},
		{"negative and backward times clamp", tlOps(tlRow{t: -50, ty: I, f: "read"}, tlRow{t: -10, ty: O, f: "read"}, tlRow{t: 40, ty: I, f: "read"}, tlRow{t: 30, ty: O, f: "read"}),
			nil, "0-1:ok[0,0] 2-3:ok[40,40]"},
		{"anomalous by either index", tlOps(tlRow{t: 1, ty: I, f: "read"}, tlRow{t: 2, ty: O, f: "read"}, tlRow{t: 3, ty: I, f: "read"}, tlRow{t: 4, ty: O, f: "read"}),
			[]int64{1, 2}, "0-1:ok[1,2]* 2-3:ok[3,4]*"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bars, _, _ := tlPair(c.ops, TimelineInput{Anomalous: c.anomalous, Refused: refused})
			if got := tlBrief(c.ops, bars); got != c.want {
				t.Errorf("bars:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// tlPlanBrief writes a plan as "name:drawn/total ... | left N keys M ops".
func tlPlanBrief(ops []history.Op, bars []tlBar, p tlPlan) string {
	var out []string
	for _, s := range p.drawn {
		name := "nokey"
		if s.keyed {
			name = s.name
		}
		d := fmt.Sprintf("%s:%d/%d", name, len(s.drawn), len(s.bars))
		if len(s.drawn) < len(s.bars) {
			var ix []string
			for _, bi := range s.drawn {
				ix = append(ix, fmt.Sprint(ops[bars[bi].inv].Index))
			}
			d += "(" + strings.Join(ix, ",") + ")"
		}
		out = append(out, d)
	}
	return fmt.Sprintf("%s | left %d keys %d ops unkeyed %v", strings.Join(out, " "), p.leftKeys, p.leftOps, p.leftUnkeyed)
}

// tlSequential is n ops of f on key (nil: none) by process 0, op i from
// i*10 to i*10+5.
func tlSequential(n int, f string, key func(i int) any) []tlRow {
	var rows []tlRow
	for i := 0; i < n; i++ {
		t := int64(i) * 10
		rows = append(rows, tlRow{t: t, ty: history.Invoke, f: f, key: key(i)}, tlRow{t: t + 5, ty: history.OK, f: f, key: key(i)})
	}
	return rows
}

func TestTimelineSelect(t *testing.T) {
	noKey := func(int) any { return nil }
	mixed := tlSequential(6, "write", func(i int) any { return []any{int64(10), int64(2), "b", int64(0), "a", int64(2)}[i] })
	// An unknown op invoked before the txn stretch overlaps all of it.
	withInfo := append([]tlRow{{t: 0, p: 1, ty: history.Invoke, f: "txn"}, {t: 1, p: 1, ty: history.Info, f: "txn"}},
		tlSequential(20, "txn", noKey)...)
	for i := 2; i < len(withInfo); i++ {
		withInfo[i].t += 2
	}
	cases := []struct {
		name      string
		rows      []tlRow
		anomalous []int64
		maxOps    int
		want      string
	}{
		{"keys in order, integers numerically", mixed, nil, 100,
			"0:1/1 2:2/2 10:1/1 a:1/1 b:1/1 | left 0 keys 0 ops unkeyed false"},
		{"anomalous key first", mixed, []int64{4}, 100,
			"b:1/1 0:1/1 2:2/2 10:1/1 a:1/1 | left 0 keys 0 ops unkeyed false"},
		{"cap leaves the rest out", mixed, []int64{4}, 3,
			"b:1/1 0:1/1 | left 3 keys 4 ops unkeyed false"},
		{"first section cut to the cap", tlSequential(5, "read", func(int) any { return int64(7) }), nil, 2,
			"7:2/5(0,2) | left 0 keys 0 ops unkeyed false"},
		{"a whole section before the cap", mixed, nil, 1,
			"0:1/1 | left 4 keys 5 ops unkeyed false"},
		{"txn without anomaly: the first ops", tlSequential(20, "txn", noKey), nil, 5,
			"nokey:5/20(0,2,4,6,8) | left 0 keys 0 ops unkeyed false"},
		{"txn stretch around the anomaly", tlSequential(20, "txn", noKey), []int64{21}, 5,
			"nokey:5/20(16,18,20,22,24) | left 0 keys 0 ops unkeyed false"},
		{"txn stretch holds the overlapping unknown op", withInfo, []int64{22}, 5,
			"nokey:5/21(0,20,22,24,26) | left 0 keys 0 ops unkeyed false"},
		{"anomaly drawn though it alone is over the cap", tlSequential(20, "txn", noKey), []int64{10, 30}, 3,
			"nokey:11/20(10,12,14,16,18,20,22,24,26,28,30) | left 0 keys 0 ops unkeyed false"},
		{"ops without a key after the keys", append(tlSequential(2, "txn", noKey), mixed[:2]...), nil, 100,
			"10:1/1 nokey:2/2 | left 0 keys 0 ops unkeyed false"},
		{"unkeyed left out", append(tlSequential(2, "txn", noKey), mixed[:2]...), nil, 1,
			"10:1/1 | left 0 keys 2 ops unkeyed true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ops := tlOps(c.rows...)
			bars, sections, _ := tlPair(ops, TimelineInput{Anomalous: c.anomalous})
			tl := &timeline{tEnd: 1}
			p := tlSelect(sections, bars, c.maxOps, tl.seconds)
			if got := tlPlanBrief(ops, bars, p); got != c.want {
				t.Errorf("plan:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// tlElem is one element of a parsed page.
type tlElem struct {
	name, id, class, style, title, href string
	parentID, parentClass               string
	text                                string
}

// tlParse checks that page is well formed (the timeline writes XHTML-clean
// HTML so encoding/xml can hold it to that) and returns its elements.
func tlParse(t *testing.T, page []byte) []tlElem {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	var stack []int
	var elems []tlElem
	ids := map[string]bool{}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("timeline is not well formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := tlElem{name: tok.Name.Local}
			for _, a := range tok.Attr {
				switch a.Name.Local {
				case "id":
					e.id = a.Value
				case "class":
					e.class = a.Value
				case "style":
					e.style = a.Value
				case "title":
					e.title = a.Value
				case "href":
					e.href = a.Value
				}
			}
			if e.id != "" {
				if ids[e.id] {
					t.Errorf("id %q appears twice", e.id)
				}
				ids[e.id] = true
			}
			if len(stack) > 0 {
				p := elems[stack[len(stack)-1]]
				e.parentID, e.parentClass = p.id, p.class
			}
			elems = append(elems, e)
			stack = append(stack, len(elems)-1)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			for _, i := range stack { // text content, as the DOM's textContent
				elems[i].text += string(tok)
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("timeline leaves %d elements open", len(stack))
	}
	return elems
}

func tlHasClass(e tlElem, c string) bool { return slices.Contains(strings.Fields(e.class), c) }

// tlFind returns the elements with class c.
func tlFind(elems []tlElem, c string) []tlElem {
	var out []tlElem
	for _, e := range elems {
		if tlHasClass(e, c) {
			out = append(out, e)
		}
	}
	return out
}

// tlDemo reads the recorded demo session's history and its fault windows.
func tlDemo(t testing.TB) ([]history.Op, []Window) {
	t.Helper()
	f, err := history.ReadFile("testdata/demo-stale-reads.history.jsonl", history.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	var windows []Window
	for _, w := range nemesis.FaultWindows(f.Ops) {
		windows = append(windows, Window{Name: w.Fault, Start: w.Start, End: w.End, Landed: w.Proven, Victims: w.Victims, Shape: w.Shape})
	}
	return f.Ops, windows
}

// TestTimelineHTMLDemo renders the stale-reads demo's S1 history, whose
// anomaly is the read #88→#89 on key "2", against a golden file, and checks
// the page's structure: anchors, bands, lanes and classes.
func TestTimelineHTMLDemo(t *testing.T) {
	ops, windows := tlDemo(t)
	if len(windows) != 3 {
		t.Fatalf("demo history has %d fault windows, want 3", len(windows))
	}
	var b bytes.Buffer
	in := TimelineInput{Title: "S1 — demo-store, seed 7", Windows: windows, Anomalous: []int64{88, 89}, Refused: nemesis.Refused, MaxOps: 300}
	if err := TimelineHTML(&b, ops, in); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "timeline-demo.golden.html", b.Bytes())
	elems := tlParse(t, b.Bytes())

	// The anomalous read: its bar carries the invocation's anchor, holds the
	// completion's, is outlined, and the first section is its key.
	var bar *tlElem
	for i, e := range elems {
		if e.id == TimelineAnchor(88) {
			bar = &elems[i]
		}
	}
	if bar == nil {
		t.Fatal("no element with id op-88")
	}
	if !tlHasClass(*bar, "op") || !tlHasClass(*bar, "anomaly") || !tlHasClass(*bar, "ok") {
		t.Errorf("op-88 has class %q, want op ok anomaly", bar.class)
	}
	if !strings.Contains(bar.title, "#88→#89 key 2, p2 on n3") || !strings.Contains(bar.title, "value: nil → 0") {
		t.Errorf("op-88's tooltip does not name the op: %q", bar.title)
	}
	found89 := false
	for _, e := range elems {
		if e.id == TimelineAnchor(89) {
			found89 = true
			if e.parentID != TimelineAnchor(88) || e.text != "" {
				t.Errorf("op-89 is in %q with text %q, want empty inside op-88", e.parentID, e.text)
			}
		}
	}
	if !found89 {
		t.Error("no element with id op-89")
	}
	if n := len(tlFind(elems, "anomaly")); n != 1 {
		t.Errorf("%d elements of class anomaly, want 1", n)
	}
	var h2 []string
	for _, e := range elems {
		if e.name == "h2" {
			h2 = append(h2, e.text)
		}
	}
	if len(h2) < 3 || h2[0] != "Anomalous ops" || h2[1] != "key 2" {
		t.Errorf("headings %q: want the anomaly list, then key 2 first", h2)
	}
	// Every link is to a bar that exists: the anomaly's from the list, and
	// each section's to its first op.
	ids := map[string]bool{}
	for _, e := range elems {
		ids[e.id] = e.id != ""
	}
	var anomalyLinks []string
	for _, e := range elems {
		if e.name != "a" {
			continue
		}
		if !strings.HasPrefix(e.href, "#") || !ids[e.href[1:]] {
			t.Errorf("link %q (%s) goes to no element", e.href, e.text)
		}
		if e.text != "go to them" {
			anomalyLinks = append(anomalyLinks, e.href+" "+e.text)
		}
	}
	if want := []string{"#op-88 #88→#89"}; !slices.Equal(anomalyLinks, want) {
		t.Errorf("anomaly list links %q, want %q", anomalyLinks, want)
	}

	// The bad read came before any fault (what issue 18 saw misread): key
	// 2's note says so; a key whose ops ran under the partition names it.
	var notes []string
	for _, e := range tlFind(elems, "note") {
		notes = append(notes, e.text)
	}
	if len(notes) == 0 || !strings.Contains(notes[0], "no fault window overlaps them") {
		t.Errorf("key 2's note %q does not say no fault was active", notes)
	}
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "overlapping them: partition symmetric") }) {
		t.Error("no section names the partition its ops ran under")
	}

	// Bands: three per section, labelled, all landed in this run.
	sections := 0
	for _, e := range elems {
		if e.name == "section" {
			sections++
		}
	}
	bands := tlFind(elems, "band")
	if got := len(bands); got != 3*sections {
		t.Errorf("%d bands for %d sections, want 3 each", got, sections)
	}
	var labels []string
	for _, e := range tlFind(elems, "bandlabel")[:3] {
		labels = append(labels, e.text)
	}
	if want := []string{"partition symmetric", "kill n3", "pause n2"}; !slices.Equal(labels, want) {
		t.Errorf("band labels %q, want %q", labels, want)
	}

	// Lanes: key 2's section has one lane per process that touched it,
	// labelled with the process and its node.
	lanes := map[string]bool{}
	for _, e := range tlFind(elems, "lanelabel") {
		lanes[e.text] = true
	}
	if !lanes["p2 n3"] || !lanes["p0 n1"] {
		t.Errorf("lane labels %v lack p2 n3 or p0 n1", lanes)
	}
	for _, c := range []string{"ok", "refused", "fail", "info", "tick", "lane"} {
		if len(tlFind(elems, c)) < 2 {
			t.Errorf("fewer than 2 elements of class %q", c)
		}
	}
	if !strings.Contains(b.String(), "more keys") || !strings.Contains(b.String(), "history.jsonl has them") {
		t.Error("the page does not say which keys the cap left out")
	}
	var again bytes.Buffer
	if err := TimelineHTML(&again, ops, in); err != nil || !bytes.Equal(again.Bytes(), b.Bytes()) {
		t.Errorf("a second render differs (err %v): output is not deterministic", err)
	}
}

// TestTimelineHTMLEscapes feeds markup through every user-data field.
func TestTimelineHTMLEscapes(t *testing.T) {
	evil := `<script>alert("x")</script>&`
	ops := tlOps(
		tlRow{t: 1e9, ty: history.Invoke, f: evil, key: evil, val: evil, node: evil},
		tlRow{t: 2e9, ty: history.Fail, f: evil, key: evil, val: evil, err: evil, node: evil},
	)
	ops[1].Extra = map[string]any{"zxid": evil}
	var b bytes.Buffer
	in := TimelineInput{Title: evil, Windows: []Window{{Name: evil, Start: 0, End: -1}}, Anomalous: []int64{0}}
	if err := TimelineHTML(&b, ops, in); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<script") {
		t.Fatalf("unescaped markup in the page:\n%s", b.String())
	}
	elems := tlParse(t, b.Bytes())
	bands := tlFind(elems, "band")
	if len(bands) != 1 || !tlHasClass(bands[0], "notlanded") || !strings.Contains(bands[0].title, "(never healed)") {
		t.Errorf("bands %+v: want a hatched never-healed band", bands)
	}
}

// TestTimelineHTMLExtra: a bar's tooltip names the extra fields the client
// recorded on the op's completion.
func TestTimelineHTMLExtra(t *testing.T) {
	ops := tlOps(
		tlRow{t: 1e9, ty: history.Invoke, f: "read", key: "k"},
		tlRow{t: 2e9, ty: history.OK, f: "read", key: "k", val: int64(3)},
	)
	ops[1].Extra = map[string]any{"zxid": int64(12), "stream_seq": int64(7)}
	var b bytes.Buffer
	if err := TimelineHTML(&b, ops, TimelineInput{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	if want := "extra: stream_seq=7 zxid=12"; !strings.Contains(b.String(), want) {
		t.Errorf("no tooltip carries %q:\n%s", want, b.String())
	}
}

// TestTimelineHTMLTxnStretch checks the page of a transaction history over
// the cap: the stretch around the anomaly is drawn, and the page says so.
func TestTimelineHTMLTxnStretch(t *testing.T) {
	ops := tlOps(tlSequential(20, "txn", func(int) any { return nil })...)
	for i := range ops {
		ops[i].Time *= 1e6 // op i from i*10 ms to i*10+5 ms
	}
	var b bytes.Buffer
	if err := TimelineHTML(&b, ops, TimelineInput{Anomalous: []int64{21}, MaxOps: 5}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, e := range tlParse(t, b.Bytes()) {
		ids[e.id] = true
	}
	for _, want := range []string{"op-16", "op-20", "op-21", "op-25"} {
		if !ids[want] {
			t.Errorf("no bar %s in the stretch", want)
		}
	}
	if ids["op-14"] || ids["op-26"] {
		t.Error("bars outside the stretch drawn")
	}
	for _, want := range []string{"<h2>ops without a key</h2>", "20 ops; drawn: the 5 overlapping 0.080 s to 0.120 s, around the anomalous ops; 15 not drawn — history.jsonl has them"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestTimelineHTMLEmpty renders histories with nothing to draw: no ops,
// only nemesis ops, an anomaly naming no client op.
func TestTimelineHTMLEmpty(t *testing.T) {
	nemesisOnly := tlOps(tlRow{t: 5, p: history.NemesisProcess, ty: history.Invoke, f: "kill"}, tlRow{t: 6, p: history.NemesisProcess, ty: history.OK, f: "kill"})
	for name, ops := range map[string][]history.Op{"none": nil, "nemesis only": nemesisOnly} {
		var b bytes.Buffer
		if err := TimelineHTML(&b, ops, TimelineInput{Anomalous: []int64{0}}); err != nil {
			t.Fatal(err)
		}
		tlParse(t, b.Bytes())
		if !strings.Contains(b.String(), "0 client ops on 0 keys") || !strings.Contains(b.String(), "#0: no bar") {
			t.Errorf("%s: the page does not say it has nothing to draw:\n%s", name, b.String())
		}
	}
}

// TestTimelineHTMLOpenEnded checks that an unknown outcome is drawn to the
// end of the history, with its wait shown apart.
func TestTimelineHTMLOpenEnded(t *testing.T) {
	ops := tlOps(
		tlRow{t: 0, ty: history.Invoke, f: "write", key: int64(1), val: int64(3)},
		tlRow{t: 1e9, ty: history.Info, f: "write", key: int64(1), val: int64(3)},
		tlRow{t: 1e9, p: 1, ty: history.Invoke, f: "read", key: int64(1)},
		tlRow{t: 10e9, p: 1, ty: history.OK, f: "read", key: int64(1), val: int64(3)},
	)
	var b bytes.Buffer
	if err := TimelineHTML(&b, ops, TimelineInput{}); err != nil {
		t.Fatal(err)
	}
	elems := tlParse(t, b.Bytes())
	var info, done *tlElem
	for i, e := range elems {
		switch e.id {
		case "op-0":
			info = &elems[i]
		case "op-1":
			done = &elems[i]
		}
	}
	if info == nil || done == nil {
		t.Fatal("op-0 or op-1 missing")
	}
	// 10 s at 100 px/s is the minimum 1000 px wide axis, from the 130 px gutter.
	if !tlHasClass(*info, "info") || info.style != "left:130.0px;width:1000.0px" {
		t.Errorf("unknown op drawn %q %q, want class info spanning the whole axis", info.class, info.style)
	}
	if done.class != "done" || done.style != "width:100.0px" {
		t.Errorf("its wait drawn %q %q, want 100px (1 of 10 s)", done.class, done.style)
	}
	if !strings.Contains(info.title, "unknown (info)") || !strings.Contains(info.text, "write 3") {
		t.Errorf("unknown op reads %q / %q", info.title, info.text)
	}
}

func TestTimelineStep(t *testing.T) {
	cases := []struct{ span, n, want float64 }{
		{12, 10, 2}, {10, 10, 1}, {600, 60, 10}, {0.004, 10, 0.0005}, {3600, 10, 500}, {0, 10, 1},
	}
	for _, c := range cases {
		if got := tlStep(c.span, c.n); got != c.want {
			t.Errorf("tlStep(%v, %v) = %v, want %v", c.span, c.n, got, c.want)
		}
	}
}

func TestTimelineCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9130: "9,130", 1234567: "1,234,567", -5: "-5"} {
		if got := tlCount(n); got != want {
			t.Errorf("tlCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkTimelineHTML renders 100k ops on 1,000 keys by 20 processes
// with an anomaly, at the default cap.
func BenchmarkTimelineHTML(b *testing.B) {
	var ops []history.Op
	for i := 0; len(ops) < 100_000; i++ {
		p, key := i%20, int64(i%1000)
		t := int64(i) * 100_000
		ty := history.OK
		if i%50 == 0 {
			ty = history.Fail
		}
		ops = append(ops,
			history.Op{Index: int64(len(ops)), Time: t, Process: p, Type: history.Invoke, F: "write", Key: key, Value: int64(i)},
			history.Op{Index: int64(len(ops) + 1), Time: t + 1_500_000, Process: p, Type: ty, F: "write", Key: key, Value: int64(i)})
	}
	in := TimelineInput{Title: "bench", Anomalous: []int64{50_000}, Windows: []Window{{Name: "kill", Start: 2e9, End: 4e9, Landed: true}}}
	var n int
	b.ReportAllocs()
	for b.Loop() {
		var c countingWriter
		if err := TimelineHTML(&c, ops, in); err != nil {
			b.Fatal(err)
		}
		n = int(c)
	}
	b.ReportMetric(float64(n), "bytes/file")
}

// countingWriter counts what is written to it.
type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
