package interp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestParam: param() reads -p values as the default's type, falls back to
// the default, and reports a value it cannot read, or a -p never read, as
// a *ParamError naming the flag.
func TestParam(t *testing.T) {
	const src = `
a = param("a", 3)
b = param("b", 0.5)
c = param("c", False)
d = param("d", "x")
e = param("e")
scenario(name = "s_%%s_%%s_%%s_%%s_%%s" % (a, b, c, d, e), client = client.noop(),
         workload = gen.limit(1, {"f": "read"}), checker = check.stats())
`
	tests := []struct {
		name    string
		params  Params
		want    string // the scenario's name
		wantErr string
	}{
		{"defaults", nil, "s_3_0.5_False_x_None", ""},
		{"typed", Params{"a": "7", "b": "2", "c": "true", "d": "y", "e": "z"}, "s_7_2.0_True_y_z", ""},
		{"bad int", Params{"a": "seven"}, "", "-p a=seven: not an integer, as the script's default 3 is (read by param() at"},
		{"bad bool", Params{"c": "maybe"}, "", "-p c=maybe: not true or false"},
		{"never read", Params{"zz": "1"}, "", "-p zz: the script never reads this parameter with param() (it reads: a, b, c, d, e)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"main.star": strings.ReplaceAll(src, "%%", "%")})
			s, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Params: tc.params})
			if tc.wantErr != "" {
				var pe *ParamError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v (%T), want a *ParamError containing %q", err, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Scenarios[0].Name; got != tc.want {
				t.Errorf("scenario %q, want %q", got, tc.want)
			}
			if len(tc.params) > 0 && len(s.Scenarios[0].params) != len(tc.params) {
				t.Errorf("the scenario records params %v", s.Scenarios[0].params)
			}
		})
	}
}

func TestParseParams(t *testing.T) {
	tests := []struct {
		flags   []string
		want    string // Flags() joined
		wantErr string
	}{
		{nil, "", ""},
		{[]string{"b=2", "a=x=y"}, "a=x=y b=2", ""},
		{[]string{"a="}, "a=", ""},
		{[]string{"a"}, "", "want KEY=VALUE"},
		{[]string{"=1"}, "", "want KEY=VALUE"},
		{[]string{"a b=1"}, "", "may hold only"},
		{[]string{"a=1", "a=2"}, "", "given twice"},
	}
	for _, tc := range tests {
		p, err := ParseParams(tc.flags)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err %v, want %q", tc.flags, err, tc.wantErr)
			}
			continue
		}
		if err != nil || strings.Join(p.Flags(), " ") != tc.want {
			t.Errorf("%v: %v %v, want %s", tc.flags, p.Flags(), err, tc.want)
		}
	}
}

// TestParamAtRunTime: param() in a generator callback, after the script
// has loaded, is an error saying to read it at load time.
func TestParamAtRunTime(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.star": `
def ops():
    return {"f": "read", "value": param("a", 1)}
scenario(name = "s", client = client.noop(), workload = gen.limit(1, gen.repeat(ops)), checker = check.stats())
`})
	s, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), s.Scenarios[0], RunOptions{Seed: 1, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "parameters are read while the script loads") {
		t.Errorf("Run: %v, want the load-time error", err)
	}
}
