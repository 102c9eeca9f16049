package gen

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
	"github.com/faultline/faultline/star"
)

func newThread() *starlark.Thread {
	return &starlark.Thread{Name: "gen-test", Print: func(*starlark.Thread, string) {}}
}

// loadGen runs a Starlark snippet with the gen module and returns its global g.
func loadGen(t *testing.T, src string) (gen.Generator, error) {
	t.Helper()
	opts := &syntax.FileOptions{While: true, Recursion: true, TopLevelControl: true, Set: true}
	globals, err := starlark.ExecFileOptions(opts, newThread(), "test.star", src, starlark.StringDict{"gen": Module})
	if err != nil {
		return nil, err
	}
	v, ok := globals["g"]
	if !ok {
		t.Fatalf("snippet defines no g")
	}
	return FromStarlark(v)
}

func TestStarlarkModule(t *testing.T) {
	cases := []struct {
		name, src string
		conc      int
		nemesis   bool
		want      string
	}{
		{"dict is one op", `g = {"f": "read"}`, 2, false, "0:0:read"},
		{"limit repeat", `g = gen.limit(3, gen.repeat({"f": "read", "key": "x"}))`, 3, false, "0:0:read 0:1:read 0:2:read"},
		{"repeat n", `g = gen.repeat(2, {"f": "a"})`, 1, false, "0:0:a 10:0:a"},
		{"cycle n", `g = gen.cycle(2, [{"f": "a"}, {"f": "b"}])`, 1, false, "0:0:a 10:0:b 20:0:a 30:0:b"},
		{"once", `g = gen.once(gen.repeat({"f": "a"}))`, 1, false, "0:0:a"},
		{"list", `g = [{"f": "a"}, ({"f": "b"}, {"f": "c"}), None]`, 1, false, "0:0:a 10:0:b 20:0:c"},
		{"function returning dicts", "def f():\n  return {\"f\": \"w\", \"value\": 1}\ng = gen.limit(3, f)", 1, false, "0:0:w 10:0:w 20:0:w"},
		{"function returning lists", "def f():\n  return [{\"f\": \"a\"}, {\"f\": \"b\"}]\ng = gen.limit(5, f)", 1, false, "0:0:a 10:0:b 20:0:a 30:0:b 40:0:a"},
		{"function returning generators", "def f():\n  return gen.limit(2, gen.repeat({\"f\": \"a\"}))\ng = gen.limit(3, f)", 1, false, "0:0:a 10:0:a 20:0:a"},
		{"function returning None", "def f():\n  return None\ng = [f, {\"f\": \"after\"}]", 1, false, "0:0:after"},
		{"mix", `g = gen.limit(4, gen.mix([gen.repeat({"f": "a"})]))`, 2, false, "0:0:a 0:1:a 10:0:a 10:1:a"},
		{"any", `g = gen.any(gen.once(gen.repeat({"f": "a"})), {"f": "b"})`, 2, false, "0:0:a 0:1:b"},
		{"clients and nemesis", `g = gen.clients(gen.limit(2, gen.repeat({"f": "r"})), [{"f": "start"}])`, 2, true, "0:0:r 0:1:r 0:n:start"},
		{"nemesis and clients", `g = gen.nemesis({"f": "start"}, {"f": "r"})`, 2, true, "0:n:start 0:0:r"},
		{"on threads", `g = gen.on_threads(lambda t: t == "nemesis" or t % 2 == 1, gen.limit(3, gen.repeat({"f": "a"})))`, 4, true, "0:1:a 0:3:a 0:n:a"},
		{"map", `g = gen.map(lambda op: dict(op, f = op["f"] + "!", value = op["process"]), gen.limit(2, gen.repeat({"f": "a"})))`, 2, false, "0:0:a! 0:1:a!"},
		{"filter", `g = gen.filter(lambda op: op["value"] % 2 == 0, [{"f": "a", "value": v} for v in range(5)])`, 1, false, "0:0:a 10:0:a 20:0:a"},
		{"f_map", `g = gen.f_map({"start": "start-partition"}, gen.nemesis([{"f": "start"}, {"f": "stop"}]))`, 1, true, "0:n:start-partition 10:n:stop"},
		{"time limit", `g = gen.time_limit("50ms", gen.repeat({"f": "a"}))`, 1, false, "0:0:a 10:0:a 20:0:a 30:0:a 40:0:a"},
		{"delay", `g = gen.limit(3, gen.delay(0.03, gen.repeat({"f": "a"})))`, 1, false, "0:0:a 30:0:a 60:0:a"},
		{"stagger", `g = gen.limit(3, gen.stagger("0s", gen.repeat({"f": "a"})))`, 3, false, "0:0:a 0:1:a 0:2:a"},
		{"sleep and log", `g = [gen.log("hi"), gen.sleep("1s"), {"f": "a"}]`, 1, false, "1000:0:a"},
		{"op time", `g = [{"f": "a", "time": "30ms"}, {"f": "b", "time": 5000000}]`, 2, false, "30:0:a 30:1:b"},
		{"synchronize", `g = [{"f": "a"}, gen.synchronize({"f": "b"})]`, 2, false, "0:0:a 10:1:b"},
		{"phases", `g = gen.phases(gen.limit(2, gen.repeat({"f": "a"})), {"f": "b"})`, 2, false, "0:0:a 0:1:a 10:0:b"},
		{"then", `g = gen.then({"f": "a"}, {"f": "b"})`, 2, false, "0:0:a 10:1:b"},
		{"until ok", `g = gen.until_ok(gen.repeat({"f": "a"}))`, 1, false, "0:0:a"},
		{"flip flop", `g = gen.limit(3, gen.flip_flop(gen.repeat({"f": "a"}), gen.repeat({"f": "b"})))`, 1, false, "0:0:a 10:0:b 20:0:a"},
		{"concurrency limit", `g = gen.concurrency_limit(1, gen.limit(2, gen.repeat({"f": "a"})))`, 2, false, "0:0:a 10:1:a"},
		{"process limit", `g = gen.process_limit(1, gen.limit(2, gen.repeat({"f": "a"})))`, 2, false, "0:0:a 10:0:a"},
		{"each thread", `g = gen.each_thread({"f": "a"})`, 2, false, "0:0:a 0:1:a"},
		{"reserve", `g = gen.limit(3, gen.reserve(1, gen.repeat({"f": "w"}), gen.repeat({"f": "r"})))`, 2, false, "0:0:w 0:1:r 10:0:w"},
		{"concurrent keys", `g = gen.concurrent_keys(1, lambda k: gen.limit(k + 1, gen.repeat({"f": "k%d" % k})), keys = [1, 0])`, 2, false, "0:0:k1 0:1:k0 10:0:k1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := loadGen(t, c.src)
			if err != nil {
				t.Fatal(err)
			}
			cfg := gen.Config{Concurrency: c.conc, Env: NewEnv(newThread())}
			if c.nemesis {
				cfg.Nemesis = nopNemesis{}
			}
			ops := virtualRun(t, g, cfg)
			if got := testhist.Brief(ops); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestStarlarkOpDictFields(t *testing.T) {
	g, err := loadGen(t, `g = {"f": "cas", "key": "k1", "value": [1, 2], "note": {"why": "test"}}`)
	if err != nil {
		t.Fatal(err)
	}
	ops := virtualRun(t, g, gen.Config{Concurrency: 1})
	want := history.Op{Type: history.Invoke, F: "cas", Key: "k1", Value: []any{int64(1), int64(2)},
		Extra: map[string]any{"note": map[string]any{"why": "test"}}}
	if !reflect.DeepEqual(ops[0], want) {
		t.Fatalf("got %+v\nwant %+v", ops[0], want)
	}
}

// gen.concurrent_keys stamps each op with its group's key, so the kv checker
// splits the history by it.
func TestStarlarkConcurrentKeysStampsKey(t *testing.T) {
	g, err := loadGen(t, `g = gen.limit(4, gen.concurrent_keys(2, lambda k: gen.limit(2, gen.repeat({"f": "read"})), keys = ["a", "b"]))`)
	if err != nil {
		t.Fatal(err)
	}
	ops := virtualRun(t, g, gen.Config{Concurrency: 2, Env: NewEnv(newThread())})
	var keys []any
	for _, op := range ops {
		if op.Type == history.Invoke {
			keys = append(keys, op.Key)
		}
	}
	if want := []any{"a", "a", "b", "b"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
}

func TestStarlarkBuildErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`g = {"value": 1}`, `missing "f"`},
		{`g = {"f": 3}`, "f must be a non-empty string"},
		{`g = {"f": "a", "type": "sleep"}`, "use gen.sleep"},
		{`g = {"f": "a", "process": 1}`, `"process" is set by the interpreter`},
		{`g = {"f": "a", "time": -1}`, "time"},
		{`g = {"f": "a", "time": "soon"}`, "time"},
		{`g = {1: "a"}`, "want a string"},
		{`g = "read"`, "cannot use a string as a generator"},
		{`g = [{"f": "a"}, 3]`, "element 1"},
		{`g = gen.limit(-1, {"f": "a"})`, "must not be negative"},
		{`g = gen.limit("x", {"f": "a"})`, "gen.limit"},
		{`g = gen.limit(1, 2)`, "cannot use a int"},
		{`g = gen.mix(5)`, "gen.mix"},
		{`g = gen.reserve(1, {"f": "a"})`, "want (n1, g1"},
		{`g = gen.reserve(-1, {"f": "a"}, {"f": "b"})`, "thread count"},
		{`g = gen.stagger("fast", {"f": "a"})`, "bad duration"},
		{`g = gen.f_map({"a": 1}, {"f": "a"})`, "strings to strings"},
		{`g = gen.any(1)`, "argument 1"},
		{`g = gen.on_threads(1, {"f": "a"})`, "gen.on_threads"},
		{`g = gen.concurrent_keys(0, lambda k: {"f": "a"})`, "threads per key"},
		{`g = gen.concurrent_keys(1, lambda k: {"f": "a"}, keys = [])`, "keys is empty"},
		{`g = gen.concurrent_keys(1, lambda k: {"f": "a"}, keys = 3)`, "keys must be a list"},
	}
	for _, c := range cases {
		_, err := loadGen(t, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.src, err, c.want)
		}
	}
}

func TestStarlarkRunErrorsNameTheGenerator(t *testing.T) {
	cases := []struct{ src, want string }{
		{"def boom():\n  return 1 // 0\ng = boom", "generator function: boom: floored division by zero"},
		{"def bad():\n  return \"x\"\ng = bad", "generator function bad returned string"},
		{"def empty():\n  return []\ng = empty", "returned 1000 exhausted generators in a row"},
		{"def m(op):\n  fail(\"no\")\ng = gen.map(m, {\"f\": \"a\"})", "gen.map: m: fail: no"},
		{"g = gen.map(lambda op: 3, {\"f\": \"a\"})", "want an op dict"},
		{"g = gen.map(lambda op: dict(op, process = 9), {\"f\": \"a\"})", "changed the op's process"},
		{"def p(op):\n  return op[\"nope\"]\ng = gen.filter(p, {\"f\": \"a\"})", "gen.filter: p: key \"nope\" not in dict"},
		{"def t(th):\n  return th + 1\ng = gen.on_threads(t, gen.nemesis({\"f\": \"a\"}))", "gen.on_threads: t:"},
	}
	for _, c := range cases {
		g, err := loadGen(t, c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		_, err = gen.Run(context.Background(), g, gen.Config{Concurrency: 1, Virtual: true, Env: NewEnv(newThread()),
			Nemesis: nopNemesis{}, Client: okClients})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n err = %v\nwant one containing %q", c.src, err, c.want)
		}
	}
}

func TestStarlarkCallableNeedsThread(t *testing.T) {
	g, err := loadGen(t, "def f():\n  return {\"f\": \"a\"}\ng = f")
	if err != nil {
		t.Fatal(err)
	}
	_, err = gen.Run(context.Background(), g, gen.Config{Concurrency: 1, Virtual: true, Client: okClients})
	if err == nil || !strings.Contains(err.Error(), "Config.Env") {
		t.Fatalf("err = %v", err)
	}
}

func TestValue(t *testing.T) {
	v := NewValue("limit", gen.Limit(1, gen.Repeat(gen.Op(history.Op{F: "a"}))))
	if v.Type() != "generator" || v.String() != "<generator limit>" || !bool(v.Truth()) {
		t.Fatalf("value %s %s %v", v.Type(), v, v.Truth())
	}
	if _, err := v.Hash(); err == nil {
		t.Fatal("generators must not be hashable")
	}
	g, err := FromStarlark(v)
	if err != nil || g != v.Generator() {
		t.Fatalf("FromStarlark(value) = %v, %v", g, err)
	}
	if names := Module.AttrNames(); len(names) != 27 {
		t.Fatalf("module has %d members: %v", len(names), names)
	}
}

// TestStarlarkRandLocal: the run's thread draws from the generators' seeded
// stream once the run starts.
func TestStarlarkRandLocal(t *testing.T) {
	th := newThread()
	_, err := gen.Run(context.Background(), nil, gen.Config{Concurrency: 1, Virtual: true, Client: okClients, Env: NewEnv(th)})
	if err != nil {
		t.Fatal(err)
	}
	if star.Rand(th) == nil {
		t.Fatal("Run left the Starlark thread without the generators' seeded rand")
	}
}
