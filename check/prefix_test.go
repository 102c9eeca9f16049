package check

import "testing"

func TestPrefixOrder(t *testing.T) {
	c, err := PrefixOrder(PrefixOrderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	produce := []string{"0 :invoke :append 1", "0 :ok :append 1", "0 :invoke :append 2", "0 :ok :append 2", "0 :invoke :append 3", "0 :ok :append 3"}
	with := func(lines ...string) []string { return append(append([]string{}, produce...), lines...) }
	runVerdicts(t, c, []verdictCase{
		{"every view a prefix", with("1 :invoke :read nil", "1 :ok :read [1 2]", "2 :invoke :read nil", "2 :ok :read [1 2 3]", "3 :invoke :read nil", "3 :ok :read []"),
			Valid, 6, "3 views of 1 logs"},
		{"reordered", with("1 :invoke :read nil", "1 :ok :read [2 1]"), Invalid, 4, "shows 2 before 1, but 1 was acknowledged before 2 was produced"},
		{"gap", with("1 :invoke :read nil", "1 :ok :read [1 3]"), Invalid, 4, "lacks 2, acknowledged before 3 was produced"},
		{"duplicate", with("1 :invoke :read nil", "1 :ok :read [1 1]"), Invalid, 4, "holds 1 twice"},
		{"phantom", with("1 :invoke :read nil", "1 :ok :read [1 9]"), Invalid, 4, "holds 9, which no op produced"},
		{"failed produce visible", []string{"0 :invoke :append 1", "0 :fail :append 1", "1 :invoke :read nil", "1 :ok :read [1]"}, Invalid, 2, "whose produce failed"},
		// Overlapping produces may be seen in either order, and an
		// unacknowledged one may be missing.
		{"concurrent produces either order", []string{"0 :invoke :append 1", "1 :invoke :append 2", "0 :ok :append 1", "1 :info :append 2",
			"2 :invoke :read nil", "2 :ok :read [2 1]", "3 :invoke :read nil", "3 :ok :read [1]"}, Valid, 4, "each a prefix"},
		{"no views", produce, Unknown, 0, "no consumer view"},
		{"view not a list", with("1 :invoke :read nil", "1 :ok :read 5"), Unknown, 0, "a view must be a list"},
	})
}
