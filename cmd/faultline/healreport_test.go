package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

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
