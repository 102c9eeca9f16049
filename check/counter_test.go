package check

import "testing"

func TestCounter(t *testing.T) {
	runVerdicts(t, Counter(), []verdictCase{
		{"exact", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "0 :invoke :add 2", "0 :ok :add 2",
			"1 :invoke :read nil", "1 :ok :read 3",
		}, Valid, 3, "last read 3 in [3, 3]"},
		{"in-flight and info adds widen the bound", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "1 :invoke :add 5", "1 :info :add 5",
			"2 :invoke :read nil", "2 :ok :read 6", "2 :invoke :read nil", "2 :ok :read 1",
		}, Valid, 4, "last read 1 in [1, 6]"},
		{"read too high", []string{
			"0 :invoke :add 1", "0 :ok :add 1", "1 :invoke :add 5", "1 :fail :add 5",
			"2 :invoke :read nil", "2 :ok :read 6",
		}, Invalid, 3, "read 6, outside [1, 1]"},
		{"read too low", []string{
			"0 :invoke :add 2", "0 :ok :add 2", "2 :invoke :read nil", "2 :ok :read 0",
		}, Invalid, 2, "outside [2, 2]"},
		{"decrement in flight", []string{
			"0 :invoke :add 3", "0 :ok :add 3", "1 :invoke :add -2",
			"2 :invoke :read nil", "2 :ok :read 1",
		}, Valid, 3, "in [1, 3]"},
		{"never read", []string{"0 :invoke :add 1", "0 :ok :add 1"}, Unknown, 1, "never read"},
		{"bad delta", []string{"0 :invoke :add :x", "0 :ok :add :x"}, Unknown, 0, "takes an integer"},
		{"nothing", []string{"0 :invoke :write 1", "0 :ok :write 1"}, Unknown, 0, "nothing to check"},
	})
}
