package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/faultline/faultline/history"
)

func TestClassify(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("exec: %w", &pgconn.PgError{Code: code, Message: "m"}) }
	tests := []struct {
		name  string
		err   error
		stage stage
		want  history.Type
	}{
		{"serialization failure in a statement", pg("40001"), stageBefore, history.Fail},
		{"deadlock in a statement", pg("40P01"), stageBefore, history.Fail},
		{"unique violation in a statement", pg("23505"), stageBefore, history.Fail},
		{"connection lost before commit", io.ErrUnexpectedEOF, stageBefore, history.Fail},
		{"op deadline before commit", context.DeadlineExceeded, stageBefore, history.Fail},
		{"insufficient funds", errInsufficientFunds, stageBefore, history.Fail},
		{"serialization failure at commit", pg("40001"), stageCommit, history.Fail},
		{"deadlock at commit", pg("40P01"), stageCommit, history.Fail},
		{"deferred constraint at commit", pg("23503"), stageCommit, history.Fail},
		{"commit answered with rollback", pgx.ErrTxCommitRollback, stageCommit, history.Fail},
		{"admin shutdown at commit", pg("57P01"), stageCommit, history.Info},
		{"connection lost at commit", io.ErrUnexpectedEOF, stageCommit, history.Info},
		{"op deadline at commit", context.DeadlineExceeded, stageCommit, history.Info},
		{"malformed sqlstate at commit", pg("4"), stageCommit, history.Info},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify(tt.err, tt.stage); got != tt.want {
				t.Errorf("classify(%v, %d) = %s, want %s", tt.err, tt.stage, got, tt.want)
			}
		})
	}
}

func TestErrorName(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&pgconn.PgError{Code: "40001", Message: "could not serialize access"}, "serialization-failure"},
		{fmt.Errorf("commit: %w", &pgconn.PgError{Code: "40P01"}), "deadlock"},
		{&pgconn.PgError{Code: "23505", Message: "duplicate key"}, "sqlstate 23505: duplicate key"},
		{errInsufficientFunds, "insufficient-funds"},
		{errors.New("conn closed"), "conn closed"},
	}
	for _, tt := range tests {
		if got := errorName(tt.err); got != tt.want {
			t.Errorf("errorName(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestParseMops(t *testing.T) {
	mop := func(xs ...any) []any { return xs }
	tests := []struct {
		name     string
		value    any
		workload string
		want     []sqlMop // nil with wantErr
		wantErr  string
	}{
		{"append and read", []any{mop("append", int64(1), int64(2)), mop("r", int64(1), nil)}, "list-append",
			[]sqlMop{{raw: "append", f: "append", k: 1, v: 2}, {raw: "r", f: "r", k: 1}}, ""},
		{"keyword functions and long names", []any{mop(history.Keyword("read"), int64(3)), mop(history.Keyword("w"), int64(3), int64(4))}, "rw-register",
			[]sqlMop{{raw: history.Keyword("read"), f: "r", k: 3}, {raw: history.Keyword("w"), f: "w", k: 3, v: 4}}, ""},
		{"empty transaction", []any{}, "list-append", []sqlMop{}, ""},
		{"not a list", "x", "list-append", nil, "list of [f key value]"},
		{"micro-op not a list", []any{"append"}, "list-append", nil, "micro-op 0: want [f key value]"},
		{"too long", []any{mop("append", int64(1), int64(2), int64(3))}, "list-append", nil, "want [f key value]"},
		{"append in rw-register", []any{mop("append", int64(1), int64(2))}, "rw-register", nil, `"append" is not a rw-register operation`},
		{"write in list-append", []any{mop("w", int64(1), int64(2))}, "list-append", nil, `"w" is not a list-append operation`},
		{"unknown function", []any{mop("cas", int64(1), int64(2))}, "list-append", nil, `unknown function "cas"`},
		{"function not a string", []any{mop(int64(1), int64(1), int64(2))}, "list-append", nil, "function must be a string"},
		{"string key", []any{mop("r", "k", nil)}, "list-append", nil, "key must be an integer"},
		{"append without value", []any{mop("append", int64(1))}, "list-append", nil, "append needs a value"},
		{"float value", []any{mop("append", int64(1), 2.5)}, "list-append", nil, "value must be an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMops(tt.value, tt.workload)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseTransfer(t *testing.T) {
	tr := func(from, to, amount any) map[string]any {
		return map[string]any{"from": from, "to": to, "amount": amount}
	}
	tests := []struct {
		name    string
		value   any
		want    transfer
		wantErr string
	}{
		{"ok", tr(int64(0), int64(4), int64(3)), transfer{0, 4, 3}, ""},
		{"not a map", []any{int64(1)}, transfer{}, "must be {from, to, amount}"},
		{"missing amount", map[string]any{"from": int64(0), "to": int64(1)}, transfer{}, "amount must be an integer"},
		{"string account", tr("a", int64(1), int64(1)), transfer{}, "from must be an integer"},
		{"account out of range", tr(int64(0), int64(5), int64(1)), transfer{}, "accounts are 0..4"},
		{"negative account", tr(int64(-1), int64(1), int64(1)), transfer{}, "accounts are 0..4"},
		{"to itself", tr(int64(2), int64(2), int64(1)), transfer{}, "to itself"},
		{"zero amount", tr(int64(0), int64(1), int64(0)), transfer{}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTransfer(tt.value, 5)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestPostgresStartUnreachable(t *testing.T) {
	// Port 1 on loopback is closed on any sane machine: connecting is refused at once.
	p := &Postgres{DSN: "postgres://u@127.0.0.1:1/db?connect_timeout=2", Isolation: "serializable", Workload: "list-append"}
	_, err := p.Start(1)
	if err == nil || !strings.Contains(err.Error(), "postgres: connect") {
		t.Fatalf("Start = %v, want a connect error", err)
	}
}

func FuzzParseMops(f *testing.F) {
	f.Add("append", int64(1), int64(2), "list-append")
	f.Add("r", int64(0), int64(0), "rw-register")
	f.Add("w", int64(-5), int64(9), "rw-register")
	f.Fuzz(func(t *testing.T, fn string, k, v int64, workload string) {
		mops, err := parseMops([]any{[]any{fn, k, v}, []any{fn, k}}, workload)
		if err != nil {
			return
		}
		for _, m := range mops {
			if m.k != k || (m.f != "r" && m.v != v) {
				t.Fatalf("parsed %+v from key %d value %d", m, k, v)
			}
		}
	})
}

func FuzzParseTransfer(f *testing.F) {
	f.Add(int64(0), int64(1), int64(5), int64(3))
	f.Fuzz(func(t *testing.T, from, to, amount, accounts int64) {
		tr, err := parseTransfer(map[string]any{"from": from, "to": to, "amount": amount}, accounts)
		if err != nil {
			return
		}
		if tr.from == tr.to || tr.amount <= 0 || tr.from < 0 || tr.to < 0 || tr.from >= accounts || tr.to >= accounts {
			t.Fatalf("accepted %+v with %d accounts", tr, accounts)
		}
	})
}
