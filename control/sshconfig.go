package control

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// SSHConfig says how to reach nodes over ssh. The zero value means: user
// root, port 22, the usual ~/.ssh keys, ~/.ssh/known_hosts checked strictly.
type SSHConfig struct {
	User        string   // login user; default "root"
	Port        int      // default port for nodes without one; default 22
	KeyFiles    []string // unencrypted private keys; default ~/.ssh/id_{ed25519,ecdsa,rsa} that exist, unless UseAgent
	UseAgent    bool     // also offer the keys of ssh-agent
	AgentSocket string   // default $SSH_AUTH_SOCK
	KnownHosts  string   // default ~/.ssh/known_hosts
	AcceptNew   bool     // trust and record the key of a host not yet on file (never a changed key)
	// PinnedKeys maps a node name or host to the only host key it may present,
	// in authorized_keys form ("ssh-ed25519 AAAA..."); it overrides known_hosts.
	PinnedKeys       map[string]string
	HandshakeTimeout time.Duration // TCP connect + ssh handshake + auth; default 10s
	KeepAlive        time.Duration // keepalive interval; default 15s, negative disables
	MaxSessions      int           // concurrent sessions per connection; default 8 (sshd allows 10)
	SudoPassword     string        // used when sudo -n is refused
}

// DefaultMaxSessions stays under OpenSSH's default MaxSessions of 10, which
// refuses further channels with "administratively prohibited".
const DefaultMaxSessions = 8

func (c SSHConfig) withDefaults() (SSHConfig, error) {
	if c.User == "" {
		c.User = "root"
	}
	if c.Port == 0 {
		c.Port = 22
	}
	if c.Port < 1 || c.Port > 65535 {
		return c, fmt.Errorf("ssh port %d out of range", c.Port)
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 10 * time.Second
	}
	if c.KeepAlive == 0 {
		c.KeepAlive = 15 * time.Second
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.KnownHosts == "" || len(c.KeyFiles) == 0 && !c.UseAgent {
		home, err := os.UserHomeDir()
		if err != nil {
			return c, fmt.Errorf("ssh defaults: %w", err)
		}
		if c.KnownHosts == "" {
			c.KnownHosts = filepath.Join(home, ".ssh", "known_hosts")
		}
		if len(c.KeyFiles) == 0 && !c.UseAgent {
			for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
				if p := filepath.Join(home, ".ssh", name); fileExists(p) {
					c.KeyFiles = append(c.KeyFiles, p)
				}
			}
			if len(c.KeyFiles) == 0 {
				return c, errors.New("no ssh key: pass a key file (--ssh-key) or use ssh-agent")
			}
		}
	}
	if c.UseAgent && c.AgentSocket == "" {
		c.AgentSocket = os.Getenv("SSH_AUTH_SOCK")
		if c.AgentSocket == "" {
			return c, errors.New("ssh-agent requested but SSH_AUTH_SOCK is not set")
		}
	}
	return c, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// pinnedKey finds the pin for n by name, then by host.
func (c SSHConfig) pinnedKey(n Node) (ssh.PublicKey, bool) {
	for _, k := range []string{n.Name, n.Host} {
		if s, ok := c.PinnedKeys[k]; ok {
			key, err := parsePin(s)
			return key, err == nil
		}
	}
	return nil, false
}

// checkPins rejects malformed pins up front, so a typo cannot silently fall
// back to known_hosts.
func (c SSHConfig) checkPins() error {
	for k, s := range c.PinnedKeys {
		if _, err := parsePin(s); err != nil {
			return fmt.Errorf("pinned host key for %s: %w", k, err)
		}
	}
	return nil
}

func parsePin(s string) (ssh.PublicKey, error) {
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("want authorized_keys form (\"ssh-ed25519 AAAA...\"): %w", err)
	}
	return key, nil
}

// Validate checks what can be checked before any node is dialled: the
// defaults resolve, every pin parses and every key file loads. A run calls
// it first, so a mistyped --ssh-key is one clear input error, not a failed
// connection to every node.
func (c SSHConfig) Validate() error {
	_, _, err := c.resolve()
	return err
}

// resolve is c with its defaults, its pins checked and its key files
// loaded: what Validate checks and what DialSSH dials with.
func (c SSHConfig) resolve() (SSHConfig, []ssh.Signer, error) {
	c, err := c.withDefaults()
	if err != nil {
		return c, nil, err
	}
	if err := c.checkPins(); err != nil {
		return c, nil, err
	}
	signers, err := c.signers()
	return c, signers, err
}

// signers loads the key files.
func (c SSHConfig) signers() ([]ssh.Signer, error) {
	var signers []ssh.Signer
	for _, p := range c.KeyFiles {
		pem, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("ssh key: %w", err)
		}
		s, err := ssh.ParsePrivateKey(pem)
		var missing *ssh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("ssh key %s is passphrase-protected: load it into ssh-agent instead", p)
		}
		if err != nil {
			return nil, fmt.Errorf("ssh key %s: %w", p, err)
		}
		signers = append(signers, s)
	}
	return signers, nil
}

// authMethods offers the loaded keys and connects to the agent. The
// returned closer, nil without an agent, releases the agent connection.
func (c SSHConfig) authMethods(signers []ssh.Signer) ([]ssh.AuthMethod, io.Closer, error) {
	var methods []ssh.AuthMethod
	if len(signers) > 0 {
		methods = append(methods, ssh.PublicKeys(signers...))
	}
	if !c.UseAgent {
		return methods, nil, nil
	}
	conn, err := net.Dial("unix", c.AgentSocket)
	if err != nil {
		return nil, nil, fmt.Errorf("ssh-agent: %w", err)
	}
	methods = append(methods, ssh.PublicKeysCallback(agent.NewClient(conn).Signers))
	return methods, conn, nil
}
