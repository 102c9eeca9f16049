package check

import "testing"

func TestMonotonicReads(t *testing.T) {
	runVerdicts(t, MonotonicReads(SessionOptions{}), []verdictCase{
		{"growing", []string{"0 :invoke :read nil", "0 :ok :read nil", "0 :invoke :read nil", "0 :ok :read 1",
			"0 :invoke :read nil", "0 :ok :read 3"}, Valid, 3, "2 compared"},
		{"went back", []string{"0 :invoke :read nil", "0 :ok :read 3", "0 :invoke :read nil", "0 :ok :read 2"},
			Invalid, 2, "session 0: op 3 read 2 after op 1 read 3"},
		{"back to nil", []string{"0 :invoke :read nil", "0 :ok :read 3", "0 :invoke :read nil", "0 :ok :read nil"},
			Invalid, 2, "read nil after op 1 read 3"},
		{"other sessions may lag", []string{"0 :invoke :read nil", "0 :ok :read 3", "1 :invoke :read nil", "1 :ok :read 2",
			"1 :invoke :read nil", "1 :ok :read 2"}, Valid, 3, "1 compared"},
		{"one read per session", []string{"0 :invoke :read nil", "0 :ok :read 3"}, Unknown, 1, "no session read a key twice"},
		{"non-numeric values", []string{"0 :invoke :read nil", "0 :ok :read :a"}, Unknown, 0, "1 skipped"},
		{"growing writes then reads", []string{"1 :invoke :write 1", "1 :ok :write 1", "1 :invoke :write 3", "1 :ok :write 3",
			"0 :invoke :read nil", "0 :ok :read 3", "0 :invoke :read nil", "0 :ok :read 2"}, Invalid, 2, "read 2 after op 5 read 3"},
		// A register of arbitrary values: the store correctly returns the
		// later, smaller value. The values are no version order, so the
		// checker must not call it an anomaly (the wrong data model).
		{"register values are not versions", []string{"1 :invoke :write 3", "1 :ok :write 3", "0 :invoke :read nil", "0 :ok :read 3",
			"1 :invoke :write 1", "1 :ok :write 1", "0 :invoke :read nil", "0 :ok :read 1"}, Unknown, 0, "the read values are not versions: op 4 writes 1"},
		{"written values that are not numbers", []string{"1 :invoke :write :a", "1 :ok :write :a", "0 :invoke :read nil", "0 :ok :read :a"},
			Unknown, 0, "not a number"},
	})
	runVerdicts(t, MonotonicReads(SessionOptions{Session: "client", Version: "version"}), []verdictCase{
		{"by extra fields", []string{
			`{:process 0 :type :invoke :f :read :key :x :client "c1"}`, `{:process 0 :type :ok :f :read :key :x :value :b :version 5}`,
			`{:process 1 :type :invoke :f :read :key :x :client "c1"}`, `{:process 1 :type :ok :f :read :key :x :value :a :version 4}`,
		}, Invalid, 2, "session c1 key x"},
	})
}

func TestReadYourWrites(t *testing.T) {
	runVerdicts(t, ReadYourWrites(SessionOptions{}), []verdictCase{
		{"sees own write", []string{"0 :invoke :write 1", "0 :ok :write 1", "0 :invoke :read nil", "0 :ok :read 1"},
			Valid, 2, "1 reads after a session's own write"},
		{"missed own write", []string{"0 :invoke :write 1", "0 :ok :write 1", "0 :invoke :read nil", "0 :ok :read nil"},
			Invalid, 2, "op 3 read nil after its own op 1 wrote 1"},
		{"a later write by another session", []string{"0 :invoke :write 1", "0 :ok :write 1", "1 :invoke :write 2",
			"1 :info :write 2", "0 :invoke :read nil", "0 :ok :read 2"}, Valid, 2, "1 reads"},
		{"an older write by another session", []string{"1 :invoke :write 2", "1 :ok :write 2", "0 :invoke :write 1",
			"0 :ok :write 1", "0 :invoke :read nil", "0 :ok :read 2"}, Invalid, 3, "read 2 after its own op 3 wrote 1"},
		{"never read after writing", []string{"0 :invoke :read nil", "0 :ok :read nil", "0 :invoke :write 1", "0 :ok :write 1"},
			Unknown, 2, "no session read a key after writing it"},
		{"nothing", []string{"0 :invoke :cas [1 2]", "0 :ok :cas [1 2]"}, Unknown, 0, "nothing to check"},
	})
}
