package check

import (
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testhist"
)

func TestMutualExclusion(t *testing.T) {
	c, err := MutualExclusion(MutexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runVerdicts(t, c, []verdictCase{
		{"one at a time", []string{
			"0 :invoke :acquire nil", "0 :ok :acquire nil", "0 :invoke :release nil", "0 :ok :release nil",
			"1 :invoke :acquire nil", "1 :ok :acquire nil", "1 :invoke :release nil", "1 :ok :release nil",
		}, Valid, 4, "2 holds of 1 lock, never"},
		{"two holders", []string{
			"0 :invoke :acquire nil", "0 :ok :acquire nil",
			"1 :invoke :acquire nil", "1 :ok :acquire nil",
			"0 :invoke :release nil", "0 :ok :release nil",
		}, Invalid, 3, "the lock: process 0 (acquire op 1) and process 1 (acquire op 3) both held it"},
		{"never released, then another holder", []string{
			"0 :invoke :acquire nil", "0 :ok :acquire nil",
			"2 :invoke :acquire nil", "2 :fail :acquire nil",
			"1 :invoke :acquire nil", "1 :ok :acquire nil",
		}, Invalid, 3, "both held it"},
		{"overlap inside the release window is not certain", []string{
			"0 :invoke :acquire nil", "0 :ok :acquire nil",
			"0 :invoke :release nil",
			"1 :invoke :acquire nil", "1 :ok :acquire nil",
			"0 :ok :release nil",
		}, Valid, 3, "never two at once"},
		{"timed-out acquire holds nothing certain", []string{
			"0 :invoke :acquire nil", "0 :info :acquire nil",
			"1 :invoke :acquire nil", "1 :ok :acquire nil",
		}, Valid, 2, "1 hold of 1 lock"},
		{"no acquire succeeded", []string{"0 :invoke :acquire nil", "0 :fail :acquire nil"}, Unknown, 1, "never exercised"},
		{"no lock ops", []string{"0 :invoke :read nil", "0 :ok :read 1"}, Unknown, 0, "no acquire/lock"},
	})
	// Locks by key are independent.
	keyed, _ := MutualExclusion(MutexOptions{})
	runVerdicts(t, keyed, []verdictCase{
		{"different locks", []string{
			`{:process 0 :type :invoke :f :acquire :key "a" :value nil}`, `{:process 0 :type :ok :f :acquire :key "a" :value nil}`,
			`{:process 1 :type :invoke :f :acquire :key "b" :value nil}`, `{:process 1 :type :ok :f :acquire :key "b" :value nil}`,
		}, Valid, 2, "2 holds of 2 locks"},
		{"same lock", []string{
			`{:process 0 :type :invoke :f :acquire :key "a" :value nil}`, `{:process 0 :type :ok :f :acquire :key "a" :value nil}`,
			`{:process 1 :type :invoke :f :acquire :key "a" :value nil}`, `{:process 1 :type :ok :f :acquire :key "a" :value nil}`,
		}, Invalid, 2, `lock "a"`},
	})
	if _, err := MutualExclusion(MutexOptions{Lease: -time.Second}); err == nil {
		t.Error("a negative lease: no error")
	}
}

// With a lease, a hold ends when the lease runs out even without a release.
func TestMutualExclusionLease(t *testing.T) {
	h := testhist.EDN(t,
		`{:process 0 :type :invoke :f :acquire :time 0 :value nil}`, `{:process 0 :type :ok :f :acquire :time 1000000 :value nil}`,
		`{:process 1 :type :invoke :f :acquire :time 5000000000 :value nil}`, `{:process 1 :type :ok :f :acquire :time 6000000000 :value nil}`,
	)
	for _, tt := range []struct {
		lease time.Duration
		want  Validity
	}{{2 * time.Second, Valid}, {10 * time.Second, Invalid}} {
		c, err := MutualExclusion(MutexOptions{Lease: tt.lease})
		if err != nil {
			t.Fatal(err)
		}
		if r := run(t, c, h); r.Valid != tt.want {
			t.Errorf("lease %s: %s, want %s: %s", tt.lease, r.Valid, tt.want, r.Summary)
		}
	}
}
