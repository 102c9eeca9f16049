package control

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// hostKeyPolicy verifies one node's host key: against a pinned key when one
// is configured for the node, otherwise against the known_hosts file (strict
// unless AcceptNew). It also names the host-key algorithms to offer, because
// x/crypto prefers ECDSA over ed25519 and would otherwise fail against a
// host whose only key on file is ed25519 although the host has both.
type hostKeyPolicy struct {
	callback   ssh.HostKeyCallback
	algorithms []string // nil: library default
}

// newHostKeyPolicy reads the key material for one dial; known_hosts is read
// afresh each time so keys accepted by another dial are seen.
func newHostKeyPolicy(n Node, addr string, cfg SSHConfig) (hostKeyPolicy, error) {
	if pin, ok := cfg.pinnedKey(n); ok {
		return pinnedPolicy(pin), nil
	}
	db, err := knownhosts.New(cfg.KnownHosts)
	switch {
	case errors.Is(err, fs.ErrNotExist) && cfg.AcceptNew:
		db = nil // every host is new; the file is created on first accept
	case errors.Is(err, fs.ErrNotExist):
		return hostKeyPolicy{}, fmt.Errorf("known_hosts %s does not exist: create it, or pass --ssh-accept-new to trust hosts on first use", cfg.KnownHosts)
	case err != nil:
		return hostKeyPolicy{}, fmt.Errorf("known_hosts %s: %w", cfg.KnownHosts, err)
	}
	p := hostKeyPolicy{algorithms: algorithmsOnFile(db, addr)}
	p.callback = func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := errUnknownHost
		if db != nil {
			err = db(hostname, remote, key)
		}
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &re):
			return fmt.Errorf("%w: %s presented key %s, revoked in %s", ErrHostKeyMismatch, hostname, ssh.FingerprintSHA256(key), re.Revoked.String())
		case errors.As(err, &ke) && len(ke.Want) > 0:
			return fmt.Errorf("%w: %s presented %s %s, but %s has %s for it (a reinstalled node, or a man in the middle)",
				ErrHostKeyMismatch, hostname, key.Type(), ssh.FingerprintSHA256(key), cfg.KnownHosts, ke.Want[0].String())
		case errors.As(err, &ke) && cfg.AcceptNew:
			return acceptNew(cfg.KnownHosts, hostname, remote, key)
		case errors.As(err, &ke):
			return fmt.Errorf("%w: %s (%s %s) is not in %s; add it, or pass --ssh-accept-new to trust it on first use",
				ErrHostKeyUnknown, hostname, key.Type(), ssh.FingerprintSHA256(key), cfg.KnownHosts)
		}
		return fmt.Errorf("host key of %s: %w", hostname, err)
	}
	return p, nil
}

// errUnknownHost is what a missing known_hosts file amounts to: no key on
// file for any host.
var errUnknownHost error = &knownhosts.KeyError{}

func pinnedPolicy(pin ssh.PublicKey) hostKeyPolicy {
	want := string(pin.Marshal())
	return hostKeyPolicy{
		algorithms: algorithmsFor([]ssh.PublicKey{pin}),
		callback: func(hostname string, _ net.Addr, key ssh.PublicKey) error {
			if string(key.Marshal()) != want {
				return fmt.Errorf("%w: %s presented %s %s, but the pinned key is %s %s",
					ErrHostKeyMismatch, hostname, key.Type(), ssh.FingerprintSHA256(key), pin.Type(), ssh.FingerprintSHA256(pin))
			}
			return nil
		},
	}
}

// probeKey is a throwaway key no host has. Checking it against known_hosts
// fails with a KeyError that lists the keys on file for the host, which is
// the only lookup the knownhosts package offers.
var probeKey = sync.OnceValue(func() ssh.PublicKey {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil
	}
	return k
})

// algorithmsOnFile returns the host-key algorithms matching the keys on file
// for addr, or nil when there are none (an unknown host keeps the defaults).
func algorithmsOnFile(db ssh.HostKeyCallback, addr string) []string {
	probe := probeKey()
	if db == nil || probe == nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if err := db(addr, &net.TCPAddr{IP: net.IPv4zero, Port: 22}, probe); !errors.As(err, &ke) {
		return nil
	}
	keys := make([]ssh.PublicKey, len(ke.Want))
	for i, k := range ke.Want {
		keys[i] = k.Key
	}
	return algorithmsFor(keys)
}

// algorithmsFor lists the signature algorithms able to prove each key; an
// RSA key can sign with SHA-512, SHA-256 or (legacy) SHA-1.
func algorithmsFor(keys []ssh.PublicKey) []string {
	var out []string
	seen := map[string]bool{}
	add := func(algos ...string) {
		for _, a := range algos {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	for _, k := range keys {
		if k.Type() == ssh.KeyAlgoRSA {
			add(ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		} else {
			add(k.Type())
		}
	}
	return out
}

// knownHostsMu serialises accept-new appends within this process.
var knownHostsMu sync.Mutex

// acceptNew records key for hostname (trust on first use). It re-reads the
// file under the lock so two dials racing to the same host add one line, and
// a key recorded meanwhile is still enforced.
func acceptNew(path, hostname string, remote net.Addr, key ssh.PublicKey) error {
	knownHostsMu.Lock()
	defer knownHostsMu.Unlock()
	if db, err := knownhosts.New(path); err == nil {
		var ke *knownhosts.KeyError
		err := db(hostname, remote, key)
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ke) && len(ke.Want) > 0:
			return fmt.Errorf("%w: %s presented %s, but %s now has %s for it", ErrHostKeyMismatch, hostname, ssh.FingerprintSHA256(key), path, ke.Want[0].String())
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("accept new host key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("accept new host key: %w", err)
	}
	_, werr := fmt.Fprintln(f, knownhosts.Line([]string{hostname}, key))
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("accept new host key: write %s: %w", path, err)
	}
	return nil
}
