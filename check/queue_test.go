package check

import "testing"

func TestQueue(t *testing.T) {
	runVerdicts(t, Queue(), []verdictCase{
		{"from the queue", []string{
			"0 :invoke :enqueue 1", "0 :info :enqueue 1", "1 :invoke :dequeue nil", "1 :ok :dequeue 1",
			"1 :invoke :dequeue nil", "1 :ok :dequeue nil",
		}, Valid, 3, "1 enqueues, 1 elements dequeued"},
		{"dequeued twice", []string{
			"0 :invoke :enqueue 1", "0 :ok :enqueue 1", "1 :invoke :dequeue nil", "1 :ok :dequeue 1",
			"1 :invoke :drain nil", "1 :ok :drain [1]",
		}, Invalid, 3, "op 5 (process 1, drain) took 1, which was not in the queue"},
		{"failed enqueue dequeued", []string{
			"0 :invoke :enqueue 1", "0 :fail :enqueue 1", "1 :invoke :dequeue nil", "1 :ok :dequeue 1",
		}, Invalid, 2, "not in the queue"},
		{"dequeue before enqueue invoked", []string{
			"1 :invoke :dequeue nil", "1 :ok :dequeue 2", "0 :invoke :enqueue 2", "0 :ok :enqueue 2",
		}, Invalid, 2, "took 2"},
		{"nothing", []string{"0 :invoke :read nil", "0 :ok :read 1"}, Unknown, 0, "no :enqueue"},
	})
}

func TestTotalQueue(t *testing.T) {
	runVerdicts(t, TotalQueue(), []verdictCase{
		{"all drained", []string{
			"0 :invoke :enqueue 1", "0 :ok :enqueue 1", "0 :invoke :enqueue 2", "0 :info :enqueue 2",
			"1 :invoke :drain nil", "1 :ok :drain [1 2]",
		}, Valid, 3, "0 lost, 0 unexpected, 0 duplicated, 1 recovered"},
		{"lost", []string{
			"0 :invoke :enqueue 1", "0 :ok :enqueue 1", "0 :invoke :enqueue 2", "0 :ok :enqueue 2",
			"1 :invoke :dequeue nil", "1 :ok :dequeue 2",
		}, Invalid, 3, "Lost: 1 acknowledged elements were never dequeued: 1"},
		{"unexpected", []string{"1 :invoke :dequeue nil", "1 :ok :dequeue 9"}, Invalid, 1, "Unexpected: 1 dequeued elements"},
		{"duplicated is reported, not invalid", []string{
			"0 :invoke :enqueue 1", "0 :ok :enqueue 1", "1 :invoke :drain nil", "1 :ok :drain [1 1]",
		}, Valid, 2, "Duplicated (not by itself invalid): 1"},
		{"bad drain", []string{"1 :invoke :drain nil", "1 :ok :drain 3"}, Unknown, 0, "list of elements"},
	})
}
