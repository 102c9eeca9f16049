package probe

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestAsk(t *testing.T) {
	reqs := []Requirement{
		{Name: "iptables", UsedBy: []string{"S1"}},
		{Name: "compose stack", UsedBy: []string{"S2"}, BySUT: true},
		{Name: "tc-netem", UsedBy: []string{"S2", "S3"}},
		{Name: "sshd"},
	}
	tests := []struct {
		name    string
		input   string
		want    Options
		wantErr bool
	}{
		{name: "defaults", input: "\n\n\n", want: Options{Said: map[string]bool{"iptables": true, "tc-netem": true, "sshd": true}}},
		{name: "end of input takes defaults", input: "n\n", want: Options{Said: map[string]bool{"iptables": false, "tc-netem": true, "sshd": true}}},
		{name: "mixed answers", input: "YES\nskip\n no \n",
			want: Options{Said: map[string]bool{"iptables": true, "sshd": false}, Skip: []string{"tc-netem"}}},
		{name: "a bad answer is asked again", input: "maybe\ns\n\n\n",
			want: Options{Said: map[string]bool{"tc-netem": true, "sshd": true}, Skip: []string{"iptables"}}},
		{name: "gives up after repeated bad answers", input: "x\nx\nx\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			got, err := Ask(strings.NewReader(tt.input), &out, reqs)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Ask error = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Ask = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAskTranscript(t *testing.T) {
	var out strings.Builder
	reqs := []Requirement{{Name: "iptables", UsedBy: []string{"S1"}}, {Name: "compose stack", BySUT: true}}
	if _, err := Ask(strings.NewReader("n\n"), &out, reqs); err != nil {
		t.Fatal(err)
	}
	golden(t, "ask.golden.txt", out.String())
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestAskWriteError(t *testing.T) {
	if _, err := Ask(strings.NewReader(""), failWriter{}, []Requirement{{Name: "x"}}); err == nil {
		t.Error("Ask ignored a write error")
	}
}

// maxFuzzAnswer caps FuzzAsk's inputs. Three requirements asked at most
// three times each need a few short lines; a longer input adds nothing Ask
// treats differently (a line past bufio.MaxScanTokenSize fails at once:
// TestAskLineTooLong). Uncapped, the fuzzer stalled: every input with new
// coverage is minimized before fuzzing goes on, by removing bytes one at a
// time and re-running, which for an input of n bytes that will not shrink
// (a 667-byte one did) costs on the order of n² runs, seconds to minutes
// with no executions counted, until the coordinator gives up ("context
// deadline exceeded"). At 128 bytes a minimization takes milliseconds.
const maxFuzzAnswer = 128

// FuzzAsk feeds arbitrary operator input: Ask must not panic, and every
// requirement ends up answered or skipped exactly once.
func FuzzAsk(f *testing.F) {
	f.Add("y\nn\nskip\n")
	f.Add("\x00\xff\n\n")
	f.Add(strings.Repeat("?\n", 10))
	reqs := []Requirement{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	f.Fuzz(func(t *testing.T, input string) {
		if len(input) > maxFuzzAnswer {
			t.Skip("longer answers take the same paths (TestAskLineTooLong)")
		}
		o, err := Ask(strings.NewReader(input), &strings.Builder{}, reqs)
		if err != nil {
			return
		}
		if len(o.Said)+len(o.Skip) != len(reqs) {
			t.Fatalf("answers %+v do not cover %d requirements", o, len(reqs))
		}
	})
}

// An answer line longer than the scanner takes is an error naming the
// requirement, not a hang or a default.
func TestAskLineTooLong(t *testing.T) {
	in := strings.Repeat("y", 70<<10) + "\n"
	_, err := Ask(strings.NewReader(in), io.Discard, []Requirement{{Name: "iptables"}})
	if err == nil || !strings.Contains(err.Error(), "read answer for iptables") {
		t.Fatalf("err = %v, want a read error naming iptables", err)
	}
}

// countingReader counts the reads made of it.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// TestAskWaitsWhenNothingToAnswer: when the SUT brings up every
// requirement there is no question, but Ask still reads the operator's
// go-ahead before the run starts (it used to return at once).
func TestAskWaitsWhenNothingToAnswer(t *testing.T) {
	reqs := []Requirement{{Name: "demo store", UsedBy: []string{"S1"}, BySUT: true}}
	for _, tt := range []struct {
		name, input string
	}{{"enter", "\n"}, {"end of input", ""}, {"any line", "go\n"}} {
		t.Run(tt.name, func(t *testing.T) {
			in := &countingReader{r: strings.NewReader(tt.input)}
			var out strings.Builder
			o, err := Ask(in, &out, reqs)
			if err != nil {
				t.Fatal(err)
			}
			if in.reads == 0 {
				t.Error("Ask returned without reading the operator's answer")
			}
			if len(o.Said) != 0 || len(o.Skip) != 0 {
				t.Errorf("Ask = %+v, want no answers", o)
			}
			if !strings.Contains(out.String(), "Press Enter") || strings.Contains(out.String(), "Answer y, n or skip") {
				t.Errorf("prompt:\n%s", out.String())
			}
		})
	}
}

// TestAskReadsFromPipe drives Ask through a pipe, as a terminal would: a
// write to the pipe completes only once Ask reads it, and Ask returns only
// after the line has been read.
func TestAskReadsFromPipe(t *testing.T) {
	pr, pw := io.Pipe()
	type result struct {
		o   Options
		err error
	}
	done := make(chan result, 1)
	go func() {
		o, err := Ask(pr, io.Discard, []Requirement{{Name: "iptables"}})
		done <- result{o, err}
	}()
	if _, err := pw.Write([]byte("n\n")); err != nil { // blocks until Ask reads
		t.Fatal(err)
	}
	r := <-done
	pw.Close()
	if r.err != nil || !reflect.DeepEqual(r.o.Said, map[string]bool{"iptables": false}) {
		t.Fatalf("Ask = %+v, %v; want iptables said absent", r.o, r.err)
	}
}
