package check

import "testing"

func TestUniqueIDs(t *testing.T) {
	runVerdicts(t, UniqueIDs(), []verdictCase{
		{"unique", []string{
			"0 :invoke :generate nil", "0 :ok :generate 1", "1 :invoke :generate nil", "1 :ok :generate 2",
			"2 :invoke :generate nil", "2 :info :generate nil",
		}, Valid, 3, "3 attempted, 2 acknowledged, 0 duplicated"},
		{"duplicate", []string{
			"0 :invoke :generate nil", "0 :ok :generate 7", "1 :invoke :generate nil", "1 :ok :generate 7.0",
		}, Invalid, 2, "7 x2"},
		{"none acknowledged", []string{"0 :invoke :generate nil", "0 :fail :generate nil"}, Unknown, 1, "no generate was acknowledged"},
		{"nothing", []string{"0 :invoke :read nil", "0 :ok :read 1"}, Unknown, 0, "no :generate"},
	})
}
