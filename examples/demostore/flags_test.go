package demostore

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	base := []string{"--id", "n1", "--dir", "/tmp/d", "--raft-listen", "127.0.0.1:1", "--http-listen", "127.0.0.1:2"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	cases := []struct {
		name    string
		args    []string
		wantErr string
		check   func(config) bool
	}{
		{"minimal", base, "", func(c config) bool { return c.id == "n1" && len(c.peers) == 0 && !c.bootstrap && c.bug == "" }},
		{"peers and bootstrap", with("--peer", "n2=127.0.0.1:3", "--peer", "n3=127.0.0.1:4", "--bootstrap"), "",
			func(c config) bool { return c.bootstrap && c.peers.String() == "n2=127.0.0.1:3,n3=127.0.0.1:4" }},
		{"bug", with("--bug", "stale-reads"), "", func(c config) bool { return c.bug == bugStaleReads && c.apply == defaultApply }},
		{"apply timeout", with("--apply-timeout", "250ms"), "", func(c config) bool { return c.apply == 250*time.Millisecond }},
		{"zero apply timeout", with("--apply-timeout", "0s"), "must be positive", nil},
		{"unknown bug", with("--bug", "nope"), "known: stale-reads, unsafe-cas", nil},
		{"missing", []string{"--id", "n1"}, "missing --dir, --raft-listen, --http-listen", nil},
		{"peer without =", with("--peer", "n2"), "want ID=HOST:PORT", nil},
		{"peer without port", with("--peer", "n2=localhost"), "peer n2", nil},
		{"duplicate peer", with("--peer", "n2=a:1", "--peer", "n2=a:2"), "given twice", nil},
		{"self as peer", with("--peer", "n1=a:1"), "itself", nil},
		{"stray argument", with("extra"), "unexpected arguments", nil},
		{"unknown flag", with("--nope"), "not defined", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseFlags(c.args, io.Discard)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(cfg) {
				t.Errorf("parsed %+v", cfg)
			}
		})
	}
}

// Every advertised bug is accepted, and every bug the code switches on is advertised.
func TestBugsListed(t *testing.T) {
	for _, b := range Bugs {
		name, desc, ok := strings.Cut(b, ": ")
		if !ok || desc == "" {
			t.Errorf("Bugs entry %q is not \"name: description\"", b)
		}
		if err := checkBug(name); err != nil {
			t.Error(err)
		}
	}
	for _, name := range []string{bugStaleReads, bugUnsafeCAS} {
		if err := checkBug(name); err != nil {
			t.Errorf("bug %s used by the code is not in Bugs: %v", name, err)
		}
	}
}
