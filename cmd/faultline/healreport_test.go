package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/faultline/faultline/nemesis"
)

// TestPrintHealReport: a node heal could not reach or left unclean reads
// "NOT healed" with the reason, never "nothing to remove".
func TestPrintHealReport(t *testing.T) {
	unreachable := &nemesis.NodeHealError{Node: "n2", Err: errors.New("dial: no route to host")}
	remain := &nemesis.NodeHealError{Node: "n3", Err: errors.New("faultline rules remain after heal (left 1)")}
	tests := []struct {
		name string
		rep  nemesis.HealReport
		err  error
		want string
	}{
		{"all clean", nemesis.HealReport{"n1": nil, "n2": {"qdisc eth0"}}, nil,
			"n1: nothing to remove\nn2: removed qdisc eth0\n"},
		{"unreachable node", nemesis.HealReport{"n1": nil, "n2": nil}, errors.Join(unreachable),
			"n1: nothing to remove\nn2: NOT healed: dial: no route to host\n"},
		{"node missing from the report", nemesis.HealReport{"n1": nil}, fmt.Errorf("heal: %w", errors.Join(unreachable, remain)),
			"n1: nothing to remove\nn2: NOT healed: dial: no route to host\nn3: NOT healed: faultline rules remain after heal (left 1)\n"},
		{"partly healed", nemesis.HealReport{"n3": {"iptables: chain FAULTLINE"}}, errors.Join(remain),
			"n3: NOT healed: faultline rules remain after heal (left 1) (removed iptables: chain FAULTLINE)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printHealReport(&b, tt.rep, tt.err)
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}

// TestHealUnreachableNodeFails: faultline heal against a node nothing
// listens for says the node was not healed and exits non-zero.
func TestHealUnreachableNodeFails(t *testing.T) {
	// A port that was just free on loopback: the dial is refused at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(key, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "heal", "--nodes", "n1="+addr, "--ssh-key", key,
		"--known-hosts", filepath.Join(dir, "known_hosts"))
	if code != exitFail {
		t.Errorf("heal of an unreachable node: exit %d, want %d\n%s%s", code, exitFail, out, errOut)
	}
	if strings.Contains(out, "nothing to remove") || !strings.Contains(out, "n1: NOT healed: ") {
		t.Errorf("heal of an unreachable node printed:\n%s", out)
	}
}
