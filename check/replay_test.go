package check

import "testing"

func TestReplayEquivalence(t *testing.T) {
	c, err := ReplayEquivalence(ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pair := func(live, replayed string) []string {
		return []string{
			`{:process 0 :type :invoke :f :write :value 1}`, `{:process 0 :type :ok :f :write :value 1}`,
			`{:process 9 :type :invoke :f :dump :value nil}`, `{:process 9 :type :ok :f :dump :value ` + live + `}`,
			`{:process 9 :type :invoke :f :replay :value nil}`, `{:process 9 :type :ok :f :replay :value ` + replayed + `}`,
		}
	}
	runVerdicts(t, c, []verdictCase{
		{"equal", pair(`{"a" 1 "b" 2}`, `{"a" 1 "b" 2.0}`), Valid, 2, "equals the live state"},
		{"value differs", pair(`{"a" 1 "b" 2}`, `{"a" 1 "b" 3}`), Invalid, 2, `"b" is live 2, replayed 3`},
		{"entry lost by replay", pair(`{"a" 1 "b" 2}`, `{"a" 1}`), Invalid, 2, `"b" is live (2) but missing from the replay`},
		{"entry invented by replay", pair(`{"a" 1}`, `{"a" 1 "z" 0}`), Invalid, 2, `"z" is in the replay`},
		{"lists", pair(`[1 2 3]`, `[1 3 2]`), Invalid, 2, "live [1 2 3], replayed [1 3 2]"},
		{"no replay", pair(`{"a" 1}`, `{}`)[:4], Unknown, 0, "no ok :replay op"},
		{"no live state", pair(`{}`, `{"a" 1}`)[4:], Unknown, 1, "no ok :dump to compare"},
	})
	if _, err := ReplayEquivalence(ReplayOptions{Replay: "dump"}); err == nil {
		t.Error("replay and final the same function: no error")
	}
}
