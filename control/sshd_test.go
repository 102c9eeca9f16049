package control

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testdaemon"
)

const sftpServer = "/usr/lib/openssh/sftp-server"

// testSSHD is a real OpenSSH sshd on 127.0.0.1 with keys in a temp dir.
type testSSHD struct {
	dir        string
	node       Node
	clientKey  string          // private key file authorised for root
	clientPriv crypto.Signer   // the same key, for an in-process agent
	knownHosts string          // holds the ed25519 host key only
	hostKey    ssh.PublicKey   // ed25519
	otherKeys  []ssh.PublicKey // further host keys the server offers
	cmd        *exec.Cmd
	log        *testdaemon.SyncBuffer
}

type sshdOptions struct {
	ecdsaToo bool // also give the server an ECDSA host key (not put in known_hosts)
}

// startSSHD starts sshd -D -e as root, or skips/fails via internal/integration.
func startSSHD(t testing.TB, o sshdOptions) *testSSHD {
	t.Helper()
	integration.NeedRoot(t)
	sshd := integration.NeedCommand(t, "/usr/sbin/sshd")
	integration.Need(t, fileExists(sftpServer), sftpServer+" (openssh-server)")
	// sshd refuses to start without its privilege-separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	s := &testSSHD{dir: t.TempDir(), log: &testdaemon.SyncBuffer{}}
	s.hostKey = writeKey(t, filepath.Join(s.dir, "host_ed25519"), newEd25519(t))
	hostKeys := []string{filepath.Join(s.dir, "host_ed25519")}
	if o.ecdsaToo {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		s.otherKeys = append(s.otherKeys, writeKey(t, filepath.Join(s.dir, "host_ecdsa"), k))
		hostKeys = append(hostKeys, filepath.Join(s.dir, "host_ecdsa"))
	}
	s.clientPriv = newEd25519(t)
	s.clientKey = filepath.Join(s.dir, "id_ed25519")
	clientPub := writeKey(t, s.clientKey, s.clientPriv)
	if err := os.WriteFile(filepath.Join(s.dir, "authorized_keys"), ssh.MarshalAuthorizedKey(clientPub), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(s.dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	for attempt := 0; ; attempt++ {
		port := testdaemon.FreePort(t)
		s.node = Node{Name: "sshd", Host: "127.0.0.1", Port: port}
		cfg := filepath.Join(s.dir, "sshd_config")
		var b strings.Builder
		fmt.Fprintf(&b, "Port %d\nListenAddress 127.0.0.1\nPidFile %s\nAuthorizedKeysFile %s\n",
			port, filepath.Join(s.dir, "sshd.pid"), filepath.Join(s.dir, "authorized_keys"))
		for _, hk := range hostKeys {
			fmt.Fprintf(&b, "HostKey %s\n", hk)
		}
		b.WriteString("StrictModes no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n" +
			"KbdInteractiveAuthentication no\nUsePAM no\nMaxStartups 100\nLogLevel ERROR\n" +
			"Subsystem sftp " + sftpServer + "\n")
		// bash run by sshd sources ~/.bashrc, and root's on a developer
		// machine may be slow (pyenv: 2 s here); an empty HOME keeps every
		// session as fast as on a cluster node with its private /root.
		fmt.Fprintf(&b, "SetEnv HOME=%s\n", home)
		if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		s.cmd = exec.Command(sshd, "-D", "-e", "-f", cfg)
		s.cmd.Stderr = s.log
		if err := s.cmd.Start(); err != nil {
			t.Fatalf("start sshd: %v", err)
		}
		exited := make(chan struct{})
		go func() {
			s.cmd.Wait()
			close(exited)
		}()
		if s.waitReady(exited) {
			t.Cleanup(func() { s.stop(exited) })
			break
		}
		s.cmd.Process.Kill()
		<-exited
		if attempt == 2 { // the port was taken in between: try another
			t.Fatalf("sshd did not come up: %s", s.log.String())
		}
	}
	s.knownHosts = filepath.Join(s.dir, "known_hosts")
	line := knownhosts.Line([]string{s.node.Addr(22)}, s.hostKey) + "\n"
	if err := os.WriteFile(s.knownHosts, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// waitReady waits for the SSH banner on the port.
func (s *testSSHD) waitReady(exited chan struct{}) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		c, err := net.DialTimeout("tcp", s.node.Addr(22), time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(2 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "SSH-") {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// stop ends the listener and every connection it serves.
func (s *testSSHD) stop(exited chan struct{}) {
	for _, pid := range s.sessionPIDs() {
		syscall.Kill(pid, syscall.SIGCONT)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-exited
	}
}

// sessionPIDs lists every process below the listening sshd: the per-
// connection sshd processes and the commands they run.
func (s *testSSHD) sessionPIDs() []int {
	return descendants(s.cmd.Process.Pid)
}

// killConnections kills the sshd processes serving connections, which is
// what a node crash or a network cut looks like to the client.
func (s *testSSHD) killConnections(t testing.TB) {
	t.Helper()
	children := childrenOf(s.cmd.Process.Pid)
	if len(children) == 0 {
		t.Fatal("no connection to kill")
	}
	for _, pid := range children {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func (s *testSSHD) config() SSHConfig {
	return SSHConfig{User: "root", KeyFiles: []string{s.clientKey}, KnownHosts: s.knownHosts}
}

// childrenOf returns the direct children of pid.
func childrenOf(pid int) []int {
	var out []int
	for p, pp := range parents() {
		if pp == pid {
			out = append(out, p)
		}
	}
	return out
}

func descendants(pid int) []int {
	par := parents()
	var out []int
	frontier := []int{pid}
	for len(frontier) > 0 {
		var next []int
		for p, pp := range par {
			for _, f := range frontier {
				if pp == f {
					out = append(out, p)
					next = append(next, p)
				}
			}
		}
		frontier = next
	}
	return out
}

// parents maps every pid to its parent, from /proc/*/stat.
func parents() map[int]int {
	out := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				out[pid] = pp
			}
		}
	}
	return out
}

func newEd25519(t testing.TB) crypto.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

// writeKey writes priv in OpenSSH format and returns its public key.
func writeKey(t testing.TB, path string, priv crypto.Signer) ssh.PublicKey {
	t.Helper()
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	pub, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	return pub
}
