package check

import "testing"

func TestBank(t *testing.T) {
	ok := []string{
		"0 :invoke :transfer {:from 0 :to 1 :amount 5}", "0 :ok :transfer {:from 0 :to 1 :amount 5}",
		"1 :invoke :read nil", "1 :ok :read {0 5 1 15}",
	}
	opts := BankOptions{Total: 20, Accounts: []any{int64(0), int64(1)}}
	runVerdicts(t, Bank(opts), []verdictCase{
		{"conserved", ok, Valid, 2, "1 reads over 2 accounts all sum to 20"},
		{"money created", []string{"1 :invoke :read nil", "1 :ok :read {0 10 1 15}"}, Invalid, 1, "balances sum to 25, not 20"},
		{"negative balance", []string{"1 :invoke :read nil", "1 :ok :read {0 -5 1 25}"}, Invalid, 1, "account 0 has negative balance -5"},
		{"missing and unexpected accounts", []string{"1 :invoke :read nil", "1 :ok :read {0 10 2 10}"}, Invalid, 1, "account 1 is missing"},
		{"non-numeric balance", []string{"1 :invoke :read nil", "1 :ok :read {0 nil 1 20}"}, Invalid, 1, "not a number"},
		{"info transfer, no read", []string{"0 :invoke :transfer {:from 0 :to 1 :amount 5}", "0 :info :transfer {:from 0 :to 1 :amount 5}"}, Unknown, 1, "no ok :read"},
		{"read not a map", []string{"1 :invoke :read nil", "1 :ok :read [1 2]"}, Unknown, 0, "map of balances"},
	})
	runVerdicts(t, Bank(BankOptions{AllowNegative: true}), []verdictCase{
		{"total inferred from the first read", []string{
			"1 :invoke :read nil", "1 :ok :read {0 -5 1 25}", "1 :invoke :read nil", "1 :ok :read {0 10 1 11}",
		}, Invalid, 2, "balances sum to 21, not 20"},
	})
	if got := Bank(opts).(bank).String(); got != "check.bank(total=20, accounts=[0, 1])" {
		t.Errorf("String() = %s", got)
	}
}
