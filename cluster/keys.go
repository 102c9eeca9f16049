package cluster

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"
)

// keygen writes a new unencrypted ed25519 key pair to path (OpenSSH format,
// mode 0600) and path.pub, replacing any old pair, and returns the public
// key line. Generating in-process takes microseconds where a ssh-keygen run
// costs 10-80 ms, and Up needs one key per node plus the client's.
func keygen(path, comment string) (string, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", fmt.Errorf("generate key %s: %w", path, err)
	}
	block, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return "", fmt.Errorf("generate key %s: %w", path, err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("generate key %s: %w", path, err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub))) + " " + comment
	if err := writeFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		return "", fmt.Errorf("generate key: %w", err)
	}
	if err := writeFile(path+".pub", []byte(line+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("generate key: %w", err)
	}
	return line, nil
}

// readPublicKey returns the one-line public key in path.
func readPublicKey(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read public key: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
