package history

import (
	"bytes"
	"strings"
	"testing"
)

func TestWithExtra(t *testing.T) {
	shared := map[string]any{"from": "template"}
	inv := Op{Type: Invoke, F: "write", Value: int64(1), Extra: shared}
	tests := []struct {
		name    string
		add     map[string]any
		want    string // ExtraText of the result
		wantErr string
	}{
		{name: "none keeps the op", add: nil, want: "from=\"template\""},
		{name: "merged, sorted", add: map[string]any{"zxid": int64(12), "seq": "a"}, want: "from=\"template\" seq=\"a\" zxid=12"},
		{name: "add wins", add: map[string]any{"from": int64(2)}, want: "from=2"},
		{name: "core field refused", add: map[string]any{"value": int64(1)}, wantErr: `extra field "value" names a core op field`},
		{name: "fault_epoch refused", add: map[string]any{"fault_epoch": int64(1)}, wantErr: `"fault_epoch"`},
		{name: "empty name refused", add: map[string]any{"": int64(1)}, wantErr: "needs a name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := WithExtra(inv, tc.add)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := ExtraText(got.Extra); s != tc.want {
				t.Errorf("ExtraText = %q, want %q", s, tc.want)
			}
			if len(shared) != 1 || shared["from"] != "template" {
				t.Errorf("the invocation's map was written to: %v", shared)
			}
		})
	}
}

// TestWithExtraRoundTrip: extra fields on a client op survive JSONL and
// reach EDN as plain keywords, as a Jepsen op map carries :zxid.
func TestWithExtraRoundTrip(t *testing.T) {
	op, err := WithExtra(Op{Index: 3, Process: 1, Type: OK, F: "read", Value: int64(5)}, map[string]any{"zxid": int64(12), "stream_seq": int64(7)})
	if err != nil {
		t.Fatal(err)
	}
	line := AppendJSON(nil, &op)
	if !strings.Contains(string(line), `"stream_seq":7`) || !strings.Contains(string(line), `"zxid":12`) {
		t.Errorf("JSONL %s lacks the extra fields", line)
	}
	back, err := ParseJSONLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(back.Extra["zxid"], int64(12)) {
		t.Errorf("read back Extra = %v", back.Extra)
	}
	var buf bytes.Buffer
	if err := ExportEDN(&buf, []Op{back}); err != nil {
		t.Fatal(err)
	}
	edn := buf.String()
	if !strings.Contains(edn, ":zxid 12") || !strings.Contains(edn, ":stream_seq 7") {
		t.Errorf("EDN %s lacks :zxid 12 / :stream_seq 7", edn)
	}
}

func TestWithExtraNoneAllocatesNothing(t *testing.T) {
	op := Op{Type: OK, F: "read"}
	if n := testing.AllocsPerRun(100, func() { op, _ = WithExtra(op, nil) }); n != 0 {
		t.Errorf("WithExtra with nothing to add allocated %v times", n)
	}
}
