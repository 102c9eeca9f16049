package client

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/integration"
)

// fakeSession is a client.process session running testdata/fakeproc.py,
// its stderr into dir.
func fakeSession(t *testing.T, env map[string]string, timeout time.Duration) (*processSession, string) {
	t.Helper()
	py := integration.NeedCommand(t, "python3")
	script, err := filepath.Abs(filepath.Join("testdata", "fakeproc.py"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := &Process{Argv: []string{py, script}, Env: env, Timeout: timeout}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return &processSession{cfg: cfg, out: &bytes.Buffer{}, logDir: dir,
		nodes: []processNode{{"n1", "127.0.0.1:7001"}, {"n2", "127.0.0.1:7002"}}}, dir
}

func invokeF(w Worker, f string, value any) history.Op {
	return w.Invoke(context.Background(), history.Op{Process: 4, Type: history.Invoke, F: f, Key: int64(9), Value: value, Node: "n1"})
}

// TestProcessProtocol: the open handshake, ops on one long-lived process
// (state kept between ops), the invocation's value kept on an ok without
// one, extra reply fields kept, an echoed invocation accepted, and the close
// message, with stderr in the per-process log.
func TestProcessProtocol(t *testing.T) {
	s, dir := fakeSession(t, nil, 5*time.Second)
	w, err := s.Open(0, 4, "n1")
	if err != nil {
		t.Fatal(err)
	}
	if got := invokeF(w, "write", int64(3)); got.Type != history.OK || got.Value != int64(3) || got.Extra["seq"] != int64(1) || got.Key != int64(9) {
		t.Fatalf("write: %+v", got)
	}
	if got := invokeF(w, "read", nil); got.Type != history.OK || got.Value != int64(3) {
		t.Fatalf("read after write on the same process: %+v", got)
	}
	if got := invokeF(w, "echo", "v"); got.Type != history.OK || got.Value != "v" || got.Extra != nil {
		t.Fatalf("echo: %+v", got)
	}
	if got := invokeF(w, "nested-extra", nil); got.Type != history.OK || got.Extra["zxid"] != int64(12) || got.Extra["extra"] != nil {
		t.Fatalf("nested-extra: %+v", got)
	}
	if got := invokeF(w, "nope", nil); got.Type != history.Fail || got.Error != "unknown f nope" {
		t.Fatalf("fail: %+v", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(dir, "p4-n1.stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "opened n1 as process 4 with 2 nodes\nclosing\n"; string(log) != want {
		t.Fatalf("stderr log %q, want %q", log, want)
	}
}

// TestProcessBreakdowns: a process that crashes, hangs, answers garbage or
// rewrites the invocation makes the op info (its outcome unknown) and is
// killed, so the interpreter opens a fresh process; a new open on the same
// session works.
func TestProcessBreakdowns(t *testing.T) {
	cases := []struct{ f, want string }{
		{"crash", "it closed its stdout"},
		{"hang", "no reply within 300ms"},
		{"garbage", "not a JSON object"},
		{"steal-key", `changes "key"`},
	}
	for _, c := range cases {
		t.Run(c.f, func(t *testing.T) {
			s, _ := fakeSession(t, nil, 300*time.Millisecond)
			w, err := s.Open(0, 4, "n1")
			if err != nil {
				t.Fatal(err)
			}
			got := invokeF(w, c.f, nil)
			if got.Type != history.Info || !strings.Contains(got.Error.(string), c.want) || !strings.Contains(got.Error.(string), "outcome unknown") {
				t.Fatalf("%s: %+v, want info containing %q", c.f, got, c.want)
			}
			if c.f == "crash" && !strings.Contains(got.Error.(string), "about to crash on purpose") {
				t.Errorf("the crash's stderr is not quoted: %v", got.Error)
			}
			pw := w.(*processWorker)
			select {
			case <-pw.exited:
			default:
				t.Fatal("the process still runs after an info op")
			}
			if got := invokeF(w, "read", nil); got.Type != history.Info {
				t.Fatalf("an op on the killed worker: %+v", got)
			}
			_ = w.Close()
			w2, err := s.Open(0, 5, "n1")
			if err != nil {
				t.Fatalf("a fresh process: %v", err)
			}
			if got := invokeF(w2, "read", nil); got.Type != history.OK {
				t.Fatalf("read on the fresh process: %+v", got)
			}
			_ = w2.Close()
		})
	}
}

// TestProcessOpenRefused: a refused open is an error naming the process's
// reason, and an unknown node is refused before any process starts.
func TestProcessOpenRefused(t *testing.T) {
	s, _ := fakeSession(t, map[string]string{"FAKE_OPEN": "refuse"}, 5*time.Second)
	if _, err := s.Open(0, 1, "n2"); err == nil || !strings.Contains(err.Error(), "no connection to n2") {
		t.Fatalf("err = %v", err)
	}
	if _, err := s.Open(0, 1, "n9"); err == nil || !strings.Contains(err.Error(), "not a node of the run") {
		t.Fatalf("err = %v", err)
	}
}

// TestProcessCancelled: the op's context ending (the interpreter's op
// timeout) makes the op info at once and kills the process.
func TestProcessCancelled(t *testing.T) {
	s, _ := fakeSession(t, nil, time.Hour)
	w, err := s.Open(0, 1, "n1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := w.Invoke(ctx, history.Op{Process: 1, Type: history.Invoke, F: "hang"})
	if got.Type != history.Info || !strings.Contains(got.Error.(string), "canceled") {
		t.Fatalf("%+v", got)
	}
}

func TestProcessValidate(t *testing.T) {
	cases := []struct {
		p    Process
		want string
	}{
		{Process{}, "argv must name a command"},
		{Process{Argv: []string{"x"}, Timeout: -1}, "negative"},
		{Process{Argv: []string{"x"}, Service: "http"}, "out of range"},
		{Process{Argv: []string{"x"}, Env: map[string]string{"A-B": "1"}}, "shell identifier"},
	}
	for _, c := range cases {
		if err := c.p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.p, err, c.want)
		}
	}
	p := Process{Argv: []string{"python3", "c.py"}, Env: map[string]string{"PASSWORD": "secret"}, Timeout: 5 * time.Second}
	if got := p.String(); got != `client.process(argv=["python3", "c.py"], timeout="5s")` {
		t.Errorf("String() = %s", got)
	}
}

// TestProcessRunRestarts runs client.process under the interpreter: a
// process that crashes mid-op and one that hangs each make their op info,
// the thread's next op runs on a fresh process (a new process number, a new
// open, empty state), and the run ends instead of waiting on the hung one —
// whether client.process's own timeout or the run's op timeout ends the
// hang first.
func TestProcessRunRestarts(t *testing.T) {
	for _, c := range []struct {
		name               string
		procTimeout, opTTL time.Duration
	}{
		{"process timeout first", 300 * time.Millisecond, time.Minute},
		{"op timeout first", time.Hour, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir := fakeSession(t, nil, c.procTimeout)
			var ops []history.Op
			g := gen.Seq(
				gen.Op(history.Op{F: "write", Value: int64(1)}),
				gen.Op(history.Op{F: "crash"}),
				gen.Op(history.Op{F: "read"}),
				gen.Op(history.Op{F: "hang"}),
				gen.Op(history.Op{F: "read"}),
			)
			_, err := gen.Run(context.Background(), g, gen.Config{
				Concurrency: 1, Nodes: []string{"n1"}, Seed: 1, OpTimeout: c.opTTL,
				Client: func(thread, process int) (gen.Worker, error) { return s.Open(thread, process, "n1") },
				Record: func(op history.Op) error { ops = append(ops, op); return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, op := range ops {
				if op.Type != history.Invoke {
					got = append(got, fmt.Sprintf("p%d %s %s %v", op.Process, op.F, op.Type, op.Value))
				}
			}
			want := []string{"p0 write ok 1", "p0 crash info <nil>", "p1 read ok <nil>", "p1 hang info <nil>", "p2 read ok <nil>"}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("completions\n%q\nwant\n%q", got, want)
			}
			for _, p := range []string{"p0", "p1", "p2"} {
				log, err := os.ReadFile(filepath.Join(dir, p+"-n1.stderr.log"))
				if err != nil || !strings.Contains(string(log), "opened n1 as process "+p[1:]) {
					t.Errorf("%s: log %q, %v: want its own open", p, log, err)
				}
			}
		})
	}
}
