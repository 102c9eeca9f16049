package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
)

const ms = int64(1e6)

// syntheticHistory is two clients over 10s with a partition from 3s to 6s:
// latencies grow during it and some ops fail or time out.
func syntheticHistory() []history.Op {
	var ops []history.Op
	add := func(t int64, p int, ty history.Type, f string) {
		ops = append(ops, history.Op{Index: int64(len(ops)), Time: t, Process: p, Type: ty, F: f})
	}
	for i := int64(0); i < 40; i++ {
		t := i * 250 * ms
		for p := 0; p < 2; p++ {
			lat, ty := int64(2+p)*ms, history.OK
			if t >= 3000*ms && t < 6000*ms {
				lat = int64(80+10*i) * ms
				switch (i + int64(p)) % 3 {
				case 0:
					ty = history.Fail
				case 1:
					ty = history.Info
				}
			}
			add(t+int64(p)*ms, p, history.Invoke, "read")
			add(t+int64(p)*ms+lat, p, ty, "read")
		}
		if i == 12 {
			add(t, history.NemesisProcess, history.Invoke, "start-partition")
			add(t+ms, history.NemesisProcess, history.OK, "start-partition")
		}
	}
	return ops
}

func plotString(t *testing.T, ops []history.Op, windows []Window) string {
	t.Helper()
	var b bytes.Buffer
	if err := PlotSVG(&b, ops, windows); err != nil {
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

func TestPlotSVGGolden(t *testing.T) {
	windows := []Window{
		{Name: "start-partition", Start: 3001 * ms, End: 6000 * ms, Landed: true},
		{Name: "kill <n2>", Start: 7000 * ms, End: 8000 * ms, Landed: false},
		{Name: "pause", Start: 9000 * ms, End: -1, Landed: true},
	}
	svg := plotString(t, syntheticHistory(), windows)
	for _, want := range []string{"(a) latency", "(b) throughput", "start-partition", "kill &lt;n2&gt; (not landed)", `url(#hatch)`, ">8s<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("plot lacks %q", want)
		}
	}
	if strings.Contains(svg, "sampled") {
		t.Error("a small history must not be sampled")
	}
	checkGolden(t, "synthetic.plot.golden.svg", []byte(svg))
}

func TestPlotSVGDegenerate(t *testing.T) {
	zero := []history.Op{{Process: 0, Type: history.Invoke}, {Process: 0, Type: history.OK}}
	tests := []struct {
		name    string
		ops     []history.Op
		windows []Window
		want    string
	}{
		{"empty", nil, nil, "no timed ops"},
		{"all times zero", zero, nil, "no timed ops"},
		{"zero-width window on zero times", zero, []Window{{Name: "kill", Landed: true}}, "no timed ops"},
		{"only nemesis ops", []history.Op{{Time: 5 * ms, Process: history.NemesisProcess, Type: history.Invoke, F: "kill"}}, nil, "no client completions"},
		{"completion without invoke", []history.Op{{Time: 5 * ms, Process: 3, Type: history.OK}}, nil, "no client completions"},
		{"negative times", []history.Op{{Time: -5 * ms, Process: 1, Type: history.Invoke}, {Time: 2 * ms, Process: 1, Type: history.OK}, {Time: -1, Process: 2, Type: history.Invoke}, {Time: -1, Process: 2, Type: history.Fail}}, []Window{{Name: "x", Start: -10, End: -5}}, "(a) latency"},
		{"equal latencies", []history.Op{{Time: 0, Process: 1, Type: history.Invoke}, {Time: ms, Process: 1, Type: history.OK}}, nil, "(b) throughput"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if svg := plotString(t, tt.ops, tt.windows); !strings.Contains(svg, tt.want) {
				t.Errorf("plot lacks %q:\n%s", tt.want, svg)
			}
		})
	}
}

// bigHistory is n client ops (n/2 invocations and completions) over 16
// processes, one completion type in ten failing.
func bigHistory(n int) []history.Op {
	ops := make([]history.Op, 0, n)
	for i := 0; len(ops) < n; i++ {
		p, t := i%16, int64(i)*ms
		ty := history.OK
		if i%10 == 0 {
			ty = history.Fail
		}
		ops = append(ops, history.Op{Time: t, Process: p, Type: history.Invoke},
			history.Op{Time: t + int64(1+i%50)*ms, Process: p, Type: ty})
	}
	return ops
}

func TestPlotSVGSamplesBigHistories(t *testing.T) {
	svg := plotString(t, bigHistory(100_000), nil)
	if n := strings.Count(svg, "<circle cx=") - 3; n > MaxScatter { // 3 legend dots
		t.Errorf("%d scatter points, cap is %d", n, MaxScatter)
	}
	if !strings.Contains(svg, "scatter sampled: every 3-th completion, 16667 of 50000 shown") {
		t.Error("sampling caption missing")
	}
	var again bytes.Buffer
	if err := PlotSVG(&again, bigHistory(100_000), nil); err != nil || again.String() != svg {
		t.Error("sampling is not deterministic")
	}
}

func TestPlotSVGWriteError(t *testing.T) {
	if err := PlotSVG(errWriter{}, syntheticHistory(), nil); !errors.Is(err, errBroken) {
		t.Fatalf("error %v, want wrapped %v", err, errBroken)
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

// FuzzPlotSVG feeds arbitrary times and windows: the plot must always be
// well-formed and free of NaN, never panic.
func FuzzPlotSVG(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(0), uint8(0))
	f.Add(int64(1), int64(5e9), int64(2e9), int64(-1), uint8(1))
	f.Add(int64(-7), int64(9e18), int64(-3), int64(9e18), uint8(2))
	f.Fuzz(func(t *testing.T, t0, t1, ws, we int64, kind uint8) {
		types := []history.Type{history.OK, history.Fail, history.Info, history.Invoke}
		ops := []history.Op{{Time: t0, Process: 1, Type: history.Invoke}, {Time: t1, Process: 1, Type: types[int(kind)%len(types)]}}
		var b bytes.Buffer
		if err := PlotSVG(&b, ops, []Window{{Name: "w", Start: ws, End: we, Landed: kind%2 == 0}}); err != nil {
			t.Fatal(err)
		}
		checkSVG(t, b.String())
	})
}

func BenchmarkPlotSVG200k(b *testing.B) {
	ops := bigHistory(200_000)
	windows := []Window{{Name: "start-partition", Start: 20_000 * ms, End: 40_000 * ms, Landed: true}}
	b.ReportAllocs()
	for b.Loop() {
		if err := PlotSVG(io.Discard, ops, windows); err != nil {
			b.Fatal(err)
		}
	}
}

func TestThroughputBin(t *testing.T) {
	tests := []struct{ tMax, want int64 }{
		{1, 1},
		{9753 * ms, 500 * ms},
		{20_000 * ms, 1000 * ms},
		{150_000 * ms, 1000 * ms},
		{3_600_000 * ms, 20_000 * ms}, // an hour: 180 bins
	}
	for _, tt := range tests {
		if got := throughputBin(tt.tMax); got != tt.want {
			t.Errorf("throughputBin(%d) = %d, want %d", tt.tMax, got, tt.want)
		}
	}
}
