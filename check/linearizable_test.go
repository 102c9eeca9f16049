package check

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// TestModels runs small valid and invalid histories through every model.
func TestModels(t *testing.T) {
	type tc struct {
		name  string
		model string
		init  any
		h     []string // Jepsen log op lines
		want  Validity
	}
	tests := []tc{
		// register
		{"register/write then read", "register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :read nil", "1 :ok :read 1"}, Valid},
		{"register/initial nil read", "register", nil, []string{
			"1 :invoke :read nil", "1 :ok :read nil"}, Valid},
		{"register/stale read after write", "register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :read nil", "1 :ok :read nil"}, Invalid},
		{"register/read never written", "register", nil, []string{
			"1 :invoke :read nil", "1 :ok :read 7"}, Invalid},
		{"register/concurrent write may be seen", "register", nil, []string{
			"0 :invoke :write 1", "1 :invoke :read nil", "1 :ok :read 1", "0 :ok :write 1"}, Valid},
		{"register/concurrent write may be missed", "register", nil, []string{
			"0 :invoke :write 1", "1 :invoke :read nil", "1 :ok :read nil", "0 :ok :write 1"}, Valid},
		{"register/get and put", "register", nil, []string{
			"0 :invoke :put 3", "0 :ok :put 3", "1 :invoke :get nil", "1 :ok :get 3"}, Valid},
		{"register/int equals float", "register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :read nil", "1 :ok :read 1.0"}, Valid},
		{"register/keyword equals string", "register", nil, []string{
			"0 :invoke :write :a", "0 :ok :write :a", "1 :invoke :read nil", `1 :ok :read "a"`}, Valid},
		{"register/init 0 read 0", "register", int64(0), []string{
			"1 :invoke :read nil", "1 :ok :read 0"}, Valid},
		{"register/init 0 nil read is the initial value", "register", int64(0), []string{
			"1 :invoke :read nil", "1 :ok :read nil"}, Valid},
		{"register/init 0 read 1", "register", int64(0), []string{
			"1 :invoke :read nil", "1 :ok :read 1"}, Invalid},
		{"register/info write took effect", "register", nil, []string{
			"0 :invoke :write 1", "0 :info :write :timed-out", "1 :invoke :read nil", "1 :ok :read 1"}, Valid},
		{"register/info write did not take effect", "register", nil, []string{
			"0 :invoke :write 1", "0 :info :write :timed-out", "1 :invoke :read nil", "1 :ok :read nil"}, Valid},
		{"register/info write cannot be undone", "register", nil, []string{
			"0 :invoke :write 1", "0 :info :write :timed-out", "1 :invoke :read nil", "1 :ok :read 1",
			"1 :invoke :read nil", "1 :ok :read nil"}, Invalid},
		{"register/info write takes effect late", "register", nil, []string{
			"0 :invoke :write 1", "0 :info :write :timed-out", "1 :invoke :read nil", "1 :ok :read nil",
			"1 :invoke :read nil", "1 :ok :read 1"}, Valid},
		{"register/never completed write", "register", nil, []string{
			"0 :invoke :write 1", "1 :invoke :read nil", "1 :ok :read 1"}, Valid},
		{"register/failed write did not happen", "register", nil, []string{
			"0 :invoke :write 1", "0 :fail :write 1", "1 :invoke :read nil", "1 :ok :read 1"}, Invalid},
		{"register/failed timed-out read drops", "register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :read nil", "1 :fail :read :timed-out",
			"1 :invoke :read nil", "1 :ok :read 1"}, Valid},
		{"register/info read is unconstrained", "register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :read nil", "1 :info :read :timed-out"}, Valid},
		{"register/cas is not a register op", "register", nil, []string{
			"0 :invoke :cas [1 2]", "0 :ok :cas [1 2]"}, Unknown},

		// cas-register
		{"cas/write cas read", "cas-register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :cas [1 2]", "1 :ok :cas [1 2]",
			"2 :invoke :read nil", "2 :ok :read 2"}, Valid},
		{"cas/ok cas from a value never held", "cas-register", int64(0), []string{
			"1 :invoke :cas [1 2]", "1 :ok :cas [1 2]"}, Invalid},
		{"cas/ok cas from init", "cas-register", int64(0), []string{
			"1 :invoke :cas [0 2]", "1 :ok :cas [0 2]", "2 :invoke :read nil", "2 :ok :read 2"}, Valid},
		{"cas/failed cas is dropped", "cas-register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :cas [1 2]", "1 :fail :cas [1 2]",
			"2 :invoke :read nil", "2 :ok :read 1"}, Valid},
		{"cas/failed cas did not happen", "cas-register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :cas [1 2]", "1 :fail :cas [1 2]",
			"2 :invoke :read nil", "2 :ok :read 2"}, Invalid},
		{"cas/info cas took effect", "cas-register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :cas [1 2]", "1 :info :cas :timed-out",
			"2 :invoke :read nil", "2 :ok :read 2"}, Valid},
		{"cas/info cas did not take effect", "cas-register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :cas [1 2]", "1 :info :cas :timed-out",
			"2 :invoke :read nil", "2 :ok :read 1"}, Valid},
		{"cas/info cas from a value never held", "cas-register", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :cas [5 2]", "1 :info :cas :timed-out",
			"2 :invoke :read nil", "2 :ok :read 2"}, Invalid},
		{"cas/malformed cas value", "cas-register", nil, []string{
			"1 :invoke :cas 3", "1 :ok :cas 3"}, Unknown},
		{"cas/unknown function", "cas-register", nil, []string{
			"1 :invoke :frob 3", "1 :ok :frob 3"}, Unknown},

		// multi-register
		{"multi/atomic writes read together", "multi-register", nil, []string{
			"0 :invoke :txn [[:write :x 1] [:write :y 2]]", "0 :ok :txn [[:write :x 1] [:write :y 2]]",
			"1 :invoke :txn [[:read :x nil] [:read :y nil]]", "1 :ok :txn [[:read :x 1] [:read :y 2]]"}, Valid},
		{"multi/read skew", "multi-register", nil, []string{
			"0 :invoke :txn [[:write :x 1] [:write :y 1]]", "0 :ok :txn [[:write :x 1] [:write :y 1]]",
			"1 :invoke :txn [[:read :x nil] [:read :y nil]]", "1 :ok :txn [[:read :x 1] [:read :y nil]]"}, Invalid},
		{"multi/concurrent txn all or nothing", "multi-register", nil, []string{
			"0 :invoke :txn [[:write :x 1] [:write :y 1]]",
			"1 :invoke :txn [[:read :x nil] [:read :y nil]]", "1 :ok :txn [[:read :x nil] [:read :y nil]]",
			"0 :ok :txn [[:write :x 1] [:write :y 1]]"}, Valid},
		{"multi/short r and w", "multi-register", nil, []string{
			`0 :invoke :txn [["w" "x" 5]]`, `0 :ok :txn [["w" "x" 5]]`,
			`1 :invoke :txn [["r" "x" nil]]`, `1 :ok :txn [["r" "x" 5]]`}, Valid},
		{"multi/reads see own writes", "multi-register", nil, []string{
			"0 :invoke :txn [[:write :x 3] [:read :x nil]]", "0 :ok :txn [[:write :x 3] [:read :x 3]]"}, Valid},
		{"multi/init map", "multi-register", map[string]any{"x": int64(0), "y": int64(0)}, []string{
			"1 :invoke :txn [[:read :x nil] [:read :y nil]]", "1 :ok :txn [[:read :x 0] [:read :y 0]]"}, Valid},
		{"multi/init map wrong read", "multi-register", map[string]any{"x": int64(0), "y": int64(0)}, []string{
			"1 :invoke :txn [[:read :x nil]]", "1 :ok :txn [[:read :x 5]]"}, Invalid},
		{"multi/info txn writes may apply", "multi-register", nil, []string{
			"0 :invoke :txn [[:write :x 1] [:read :y nil]]", "0 :info :txn :timed-out",
			"1 :invoke :txn [[:read :x nil]]", "1 :ok :txn [[:read :x 1]]"}, Valid},
		{"multi/info txn writes may not apply", "multi-register", nil, []string{
			"0 :invoke :txn [[:write :x 1]]", "0 :info :txn :timed-out",
			"1 :invoke :txn [[:read :x nil]]", "1 :ok :txn [[:read :x nil]]"}, Valid},
		{"multi/info txn is atomic", "multi-register", nil, []string{
			"0 :invoke :txn [[:write :x 1] [:write :y 1]]", "0 :info :txn :timed-out",
			"1 :invoke :txn [[:read :x nil] [:read :y nil]]", "1 :ok :txn [[:read :x 1] [:read :y nil]]"}, Invalid},
		{"multi/plain read is not a txn", "multi-register", nil, []string{
			"1 :invoke :read nil", "1 :ok :read 1"}, Unknown},
		{"multi/bad micro-op", "multi-register", nil, []string{
			"1 :invoke :txn [[:append :x 1]]", "1 :ok :txn [[:append :x 1]]"}, Unknown},

		// kv, with Jepsen independent tuples
		{"kv/tuples per key", "kv", nil, []string{
			"0 :invoke :write [:x 1]", "0 :ok :write [:x 1]", "1 :invoke :write [:y 2]", "1 :ok :write [:y 2]",
			"2 :invoke :read [:x nil]", "2 :ok :read [:x 1]", "2 :invoke :read [:y nil]", "2 :ok :read [:y 2]"}, Valid},
		{"kv/tuples cross-key read", "kv", nil, []string{
			"0 :invoke :write [:x 1]", "0 :ok :write [:x 1]", "1 :invoke :write [:y 2]", "1 :ok :write [:y 2]",
			"2 :invoke :read [:x nil]", "2 :ok :read [:x 2]"}, Invalid},
		{"kv/tuple cas", "kv", nil, []string{
			"0 :invoke :write [:x 1]", "0 :ok :write [:x 1]", "1 :invoke :cas [:x [1 4]]", "1 :ok :cas [:x [1 4]]",
			"2 :invoke :read [:x nil]", "2 :ok :read [:x 4]"}, Valid},
		{"kv/tuple info write", "kv", nil, []string{
			"0 :invoke :write [:x 1]", "0 :info :write :timed-out",
			"2 :invoke :read [:x nil]", "2 :ok :read [:x 1]"}, Valid},
		{"kv/no key", "kv", nil, []string{
			"0 :invoke :write 1", "0 :ok :write 1"}, Unknown},
		{"kv/init 0 per key", "kv", int64(0), []string{
			"0 :invoke :read [:x nil]", "0 :ok :read [:x 0]", "1 :invoke :cas [:y [0 1]]", "1 :ok :cas [:y [0 1]]"}, Valid},
		{"kv/empty string is absent", "kv", nil, []string{
			`0 :invoke :get [:x nil]`, `0 :ok :get [:x ""]`, `1 :invoke :append [:x "ab"]`, `1 :ok :append [:x "ab"]`,
			`0 :invoke :get [:x nil]`, `0 :ok :get [:x "ab"]`}, Valid},
		{"kv/append order", "kv", nil, []string{
			`0 :invoke :append [:x "a"]`, `0 :ok :append [:x "a"]`, `1 :invoke :append [:x "b"]`, `1 :ok :append [:x "b"]`,
			`2 :invoke :get [:x nil]`, `2 :ok :get [:x "ba"]`}, Invalid},
		// a final dump (scenario final=) is a read of every key it names
		{"kv/final dump reads every key", "kv", nil, []string{
			"0 :invoke :write [:x 1]", "0 :ok :write [:x 1]", "1 :invoke :write [:y 2]", "1 :ok :write [:y 2]",
			"2 :invoke :dump nil", `2 :ok :dump {"x" 1 "y" 2 "z" nil}`}, Valid},
		{"kv/final dump misses a write", "kv", nil, []string{
			"0 :invoke :write [:x 1]", "0 :ok :write [:x 1]", "1 :invoke :write [:y 2]", "1 :ok :write [:y 2]",
			"2 :invoke :dump nil", `2 :ok :dump {"x" 1 "y" nil}`}, Invalid},
		{"kv/final dump that failed or timed out says nothing", "kv", nil, []string{
			"0 :invoke :write [:x 1]", "0 :ok :write [:x 1]",
			"2 :invoke :dump nil", "2 :fail :dump nil", "2 :invoke :dump nil", "2 :info :dump nil"}, Valid},
		{"cas/final dump of the unkeyed register", "cas-register", nil, []string{
			"0 :invoke :write 3", "0 :ok :write 3", "2 :invoke :dump nil", `2 :ok :dump {"nil" 3}`}, Valid},
		{"cas/final dump reads a stale value", "cas-register", nil, []string{
			"0 :invoke :write 3", "0 :ok :write 3", "2 :invoke :dump nil", `2 :ok :dump {"nil" nil}`}, Invalid},
		{"kv/key on a register model", "register", nil, nil, Unknown}, // filled from EDN below
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h []history.Op
			if tt.h == nil {
				h = testhist.EDN(t, `{:process 0, :type :invoke, :f :write, :key "x", :value 1}`)
			} else {
				h = testhist.JepsenLog(t, tt.h...)
			}
			res := run(t, mustLinearizable(t, tt.model, tt.init), h)
			if res.Valid != tt.want {
				t.Fatalf("got %s, want %s\nsummary: %s\n%s", res.Valid, tt.want, res.Summary, res.Explanation)
			}
			if res.Checker != "linearizable" || res.Summary == "" {
				t.Errorf("checker %q summary %q", res.Checker, res.Summary)
			}
			if res.Valid == Invalid && !strings.Contains(res.Explanation, "cannot be linearized") {
				t.Errorf("invalid result without an explanation:\n%s", res.Explanation)
			}
			if res.Valid != Unknown && res.Consumed.Ops == 0 {
				t.Errorf("verdict %s over zero consumed ops", res.Valid)
			}
		})
	}
}

// TestKVKeysFromOps checks kv partitioning by Op.Key as the EDN corpus writes it.
func TestKVKeysFromOps(t *testing.T) {
	h := testhist.EDN(t,
		`{:process 0, :type :invoke, :f :put, :key "a", :value "1"}`,
		`{:process 0, :type :ok, :f :put, :key "a", :value "1"}`,
		`{:process 1, :type :invoke, :f :put, :key "b", :value "2"}`,
		`{:process 1, :type :ok, :f :put, :key "b", :value "2"}`,
		`{:process 2, :type :invoke, :f :get, :key "a", :value nil}`,
		`{:process 2, :type :ok, :f :get, :key "a", :value "1"}`,
		`{:process 2, :type :invoke, :f :get, :key "c", :value nil}`,
		`{:process 2, :type :ok, :f :get, :key "c", :value ""}`,
	)
	res := run(t, mustLinearizable(t, "kv", nil), h)
	if res.Valid != Valid || res.Consumed != (Consumed{Ops: 4, Keys: 3}) {
		t.Fatalf("got %s %+v: %s", res.Valid, res.Consumed, res.Summary)
	}
	h[5].Value = "2"
	res = run(t, mustLinearizable(t, "kv", nil), h)
	if res.Valid != Invalid || !strings.Contains(res.Summary, `on key "a"`) {
		t.Fatalf("got %s: %s", res.Valid, res.Summary)
	}
	if key, _ := res.Details["failing_key"].(string); key != "a" {
		t.Errorf("failing_key = %v", res.Details["failing_key"])
	}
}

// A history where nothing took effect is linearizable, as Knossos says; the
// result says nothing took effect and consumes no op, so the verdict layer
// can tell such a run proves nothing. A history with no client op at all is
// not asked anything: TestNoClientOpsIsUnknown.
func TestNothingTookEffect(t *testing.T) {
	tests := map[string][]history.Op{
		"only failed": testhist.JepsenLog(t, "0 :invoke :write 1", "0 :fail :write 1"),
		"only unknown reads": testhist.JepsenLog(t, "0 :invoke :read nil", "0 :info :read :timed-out",
			"1 :invoke :read nil"),
	}
	for name, h := range tests {
		t.Run(name, func(t *testing.T) {
			res := run(t, mustLinearizable(t, "cas-register", nil), h)
			if res.Valid != Valid || !strings.Contains(res.Summary, "nothing took effect") || res.Consumed.Ops != 0 {
				t.Fatalf("got %s over %d ops: %s", res.Valid, res.Consumed.Ops, res.Summary)
			}
		})
	}
}

func TestLinearizableOptions(t *testing.T) {
	tests := []struct {
		model   string
		init    any
		wantErr string
	}{
		{"register", nil, ""},
		{"cas-register", int64(0), ""},
		{"multi-register", map[string]any{"x": int64(0)}, ""},
		{"kv", "", ""},
		{"bank", nil, "models: register, cas-register, multi-register, kv"},
		{"multi-register", int64(0), "must be a map"},
		{"kv", map[string]any{"x": int64(0)}, "one value for every key"},
	}
	for _, tt := range tests {
		c, err := Linearizable(LinearizableOptions{Model: tt.model, Init: tt.init})
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.model, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s init %v: error %v, want one containing %q", tt.model, tt.init, err, tt.wantErr)
		case err == nil && c.Name() != "linearizable":
			t.Errorf("name %q", c.Name())
		}
	}
	if got := strings.Join(Models(), ","); got != "register,cas-register,multi-register,kv" {
		t.Errorf("Models() = %s", got)
	}
}

// hardHistory is exponential for any linearizability search: n writes of
// distinct values that never complete, then a read of a value nobody wrote.
// Proving it illegal means trying every subset of the writes.
func hardHistory(t testing.TB, n int) []history.Op {
	var lines []string
	for p := range n {
		lines = append(lines, strings.Join([]string{itoa(p), ":invoke :write", itoa(p + 100)}, " "))
	}
	lines = append(lines, itoa(n)+" :invoke :read nil", itoa(n)+" :ok :read 99999")
	return testhist.JepsenLog(t, lines...)
}

func itoa(i int) string { return formatValue(int64(i)) }

func TestTimeoutIsUnknown(t *testing.T) {
	h := hardHistory(t, 40)
	c := mustLinearizable(t, "register", nil)
	res := c.Check(context.Background(), h, Env{Timeout: 20 * time.Millisecond})
	if res.Valid != Unknown {
		t.Fatalf("got %s, want unknown: %s", res.Valid, res.Summary)
	}
	for _, want := range []string{"timed out after 20ms", "41 ops", "40 with unknown outcome"} {
		if !strings.Contains(res.Summary, want) {
			t.Errorf("summary lacks %q: %s", want, res.Summary)
		}
	}
	if !strings.Contains(res.Explanation, "raise the timeout") {
		t.Errorf("explanation gives no way forward:\n%s", res.Explanation)
	}
}

func TestContextEndsSearch(t *testing.T) {
	h := hardHistory(t, 40)
	c := mustLinearizable(t, "register", nil)
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if res := c.Check(ctx, h, Env{}); res.Valid != Unknown {
			t.Fatalf("got %s: %s", res.Valid, res.Summary)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			time.Sleep(20 * time.Millisecond)
			cancel(errors.New("operator hit ^C"))
		}()
		res := c.Check(ctx, h, Env{})
		if res.Valid != Unknown || !strings.Contains(res.Summary, "operator hit ^C") {
			t.Fatalf("got %s: %s", res.Valid, res.Summary)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if res := c.Check(ctx, h, Env{}); res.Valid != Unknown {
			t.Fatalf("got %s: %s", res.Valid, res.Summary)
		}
	})
}

// Every dump is accounted for: an ok one is one consumed op however many
// keys it read, a failed one a dropped failure, an unknown one a dropped
// read, so consumed + dropped still equals the client ops issued.
func TestLinearizableAccountsForDumps(t *testing.T) {
	h := testhist.JepsenLog(t, "0 :invoke :write [:x 1]", "0 :ok :write [:x 1]",
		"2 :invoke :dump nil", "2 :fail :dump nil", "2 :invoke :dump nil", "2 :info :dump nil",
		"2 :invoke :dump nil", `2 :ok :dump {"x" 1 "y" nil}`)
	res := run(t, mustLinearizable(t, "kv", nil), h)
	if res.Valid != Valid {
		t.Fatalf("got %s: %s", res.Valid, res.Summary)
	}
	failed, _ := res.Details["failed_ops_dropped"].(int)
	unknown, _ := res.Details["unknown_reads_dropped"].(int)
	if res.Consumed.Ops != 2 || failed != 1 || unknown != 1 || res.Consumed.Keys != 2 {
		t.Errorf("consumed %+v, failed %d, unknown reads %d; want 2 ops over 2 keys, 1 and 1", res.Consumed, failed, unknown)
	}
}
