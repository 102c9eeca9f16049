package logaudit

import (
	"strings"
	"testing"
)

// The per-line cost of the audit on the common case, a clean line, against
// the fixed grep it replaced (legacyMatch, kept here as the baseline): run
// both with go test ./logaudit -bench . and compare ns/op.

var benchLines = [][]byte{
	[]byte("2026-07-01T12:00:00.123Z INFO raft: node n2 became follower at term 7, leader n1 " + strings.Repeat("k=v ", 10)),
	[]byte("2024-01-01 12:00:00,001 [myid:1] - WARN  [QuorumPeer[myid=1]:Follower@129] - Exception when following the leader java.net.ConnectException: Connection refused"),
	[]byte("\tat java.lang.Thread.run(Thread.java:829)"),
}

func BenchmarkMatchDefaults(b *testing.B) {
	set, err := Spec{Expected: []string{`ConnectionLossException`}}.Compile()
	if err != nil {
		b.Fatal(err)
	}
	benchLinesWith(b, func(line []byte) bool { a, _ := set.Match(line); return a != nil })
}

func BenchmarkMatchLegacy(b *testing.B) {
	benchLinesWith(b, func(line []byte) bool { _, ok := legacyMatch(line); return ok && false })
}

func benchLinesWith(b *testing.B, match func([]byte) bool) {
	n := 0
	for _, l := range benchLines {
		n += len(l)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range benchLines {
			if match(l) {
				b.Fatalf("clean line matched: %s", l)
			}
		}
	}
}

// legacyMatch is the fixed grep red flag #7 used before patterns could be
// declared (panic|exception|internal error, ASCII case folded), kept only
// as the benchmark's baseline.
func legacyMatch(line []byte) (string, bool) {
	alarms := [...]string{"panic", "exception", "internal error"}
	for i, c := range line {
		var a string
		switch c | 0x20 {
		case 'p':
			a = alarms[0]
		case 'e':
			a = alarms[1]
		case 'i':
			a = alarms[2]
		default:
			continue
		}
		if hasFoldPrefix(line[i:], a) {
			return a, true
		}
	}
	return "", false
}

func hasFoldPrefix(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
