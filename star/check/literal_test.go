package check

import (
	"math"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/star"
)

// TestCheckerTextIsStarlark pins that package check, which renders an init
// value as a script writes it without importing Starlark, agrees with
// Starlark's own str of the same value: a checker's String reads the same
// as before the split.
func TestCheckerTextIsStarlark(t *testing.T) {
	values := []any{
		nil, true, false, 0, int64(-7), 1.0, 0.5, 1e21, 1e-7, math.Inf(1), math.Inf(-1),
		"", "x", `q"b\s`, "tab\tnl\n\a\x00\x7f", "é ünï\u00ad\U000e0001", "bad\xffutf8", history.Keyword("kw"),
		[]any{}, []any{1, "a", nil, []any{2.5}}, map[string]any{}, map[string]any{"y": 0, "x": []any{1}, "z": map[string]any{"k": false}},
		history.Set{1, 1.0, "a", history.Keyword("a"), int64(2)}, history.Set{}, history.Set{[]any{1}},
	}
	for _, v := range values {
		c, err := check.Linearizable(check.LinearizableOptions{Model: "register", Init: v})
		if err != nil {
			t.Fatal(err)
		}
		got := c.(interface{ String() string }).String()
		want := `check.linearizable(model="register", init=` + history.FormatEDN(v) + `)`
		if sv, err := star.FromGo(v); err == nil {
			want = `check.linearizable(model="register", init=` + sv.String() + `)`
		}
		if got != want {
			t.Errorf("init %#v: %s, want %s", v, got, want)
		}
		b := check.Bank(check.BankOptions{Accounts: []any{v}}).(interface{ String() string }).String()
		wantBank := "check.bank()"
		if sv, err := star.FromGo([]any{v}); err == nil {
			wantBank = "check.bank(accounts=" + sv.String() + ")"
		}
		if b != wantBank {
			t.Errorf("accounts [%#v]: %s, want %s", v, b, wantBank)
		}
	}
}
