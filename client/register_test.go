package client

import (
	"context"
	"testing"

	"github.com/faultline/faultline/history"
)

func invoke(t *testing.T, w Worker, f string, key, value any) history.Op {
	t.Helper()
	return w.Invoke(context.Background(), history.Op{Type: history.Invoke, F: f, Key: key, Value: value})
}

func TestRegisterSemantics(t *testing.T) {
	sess, err := (&Register{}).Start(1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sess.Open(0, 0, "n1")
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		f         string
		key       any
		value     any
		wantType  history.Type
		wantValue any
	}{
		{"read", nil, nil, history.OK, nil},
		{"write", nil, int64(3), history.OK, int64(3)},
		{"read", nil, nil, history.OK, int64(3)},
		{"cas", nil, []any{int64(2), int64(4)}, history.Fail, []any{int64(2), int64(4)}},
		{"cas", nil, []any{int64(3), int64(4)}, history.OK, []any{int64(3), int64(4)}},
		{"read", nil, nil, history.OK, int64(4)},
		{"read", "other", nil, history.OK, nil}, // keys are independent registers
		{"cas", nil, int64(1), history.Fail, nil},
		{"frob", nil, nil, history.Fail, nil},
	}
	for i, s := range steps {
		got := invoke(t, w, s.f, s.key, s.value)
		if got.Type != s.wantType {
			t.Fatalf("step %d %s: type %s, want %s (%+v)", i, s.f, got.Type, s.wantType, got)
		}
		if s.wantValue != nil && !history.Equal(got.Value, s.wantValue) {
			t.Fatalf("step %d %s: value %v, want %v", i, s.f, got.Value, s.wantValue)
		}
	}
}

func TestStaleReadsAreDeterministicAndStale(t *testing.T) {
	run := func() (stale int, reads []any) {
		sess, _ := (&Register{StaleReads: 0.5}).Start(9)
		w, _ := sess.Open(0, 0, "n1")
		for i := int64(1); i <= 200; i++ {
			invoke(t, w, "write", nil, i)
			got := invoke(t, w, "read", nil, nil)
			reads = append(reads, got.Value)
			if !history.Equal(got.Value, i) {
				stale++
			}
		}
		return stale, reads
	}
	stale, a := run()
	if stale < 50 || stale > 150 {
		t.Fatalf("%d of 200 reads were stale with stale_reads=0.5", stale)
	}
	_, b := run()
	for i := range a {
		if !history.Equal(a[i], b[i]) {
			t.Fatalf("read %d differs between runs with the same seed: %v vs %v", i, a[i], b[i])
		}
	}
}
