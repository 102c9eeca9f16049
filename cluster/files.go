package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// record is cluster.json: the shape Up built, so a later Up can tell "same
// cluster" from "different cluster" and Down knows what to remove.
type record struct {
	Prefix string `json:"prefix"`
	Bridge string `json:"bridge"`
	Subnet string `json:"subnet"`
	Nodes  int    `json:"nodes"`
	// VM marks a cluster of QEMU nodes; Packages are its image's extra
	// Debian packages, comma-separated. Both are absent for netns nodes,
	// whose records stay as they were.
	VM       bool   `json:"vm,omitempty"`
	Packages string `json:"packages,omitempty"`
	// Info is what a VM cluster's Up measured; not part of the shape.
	Info *VMInfo `json:"vm_info,omitempty"`
}

func recordOf(c Config) record {
	return record{Prefix: c.Prefix, Bridge: c.Bridge, Subnet: c.Subnet, Nodes: c.Nodes,
		VM: c.VM, Packages: strings.Join(c.Packages, ",")}
}

// config turns a record back into a checked Config in dir.
func (r record) config(dir string) (Config, error) {
	c := Config{Nodes: r.Nodes, StateDir: dir, Subnet: r.Subnet, Bridge: r.Bridge, Prefix: r.Prefix, VM: r.VM}
	if r.Packages != "" {
		c.Packages = strings.Split(r.Packages, ",")
	}
	if r.Nodes == 0 || r.Subnet == "" || r.Bridge == "" || r.Prefix == "" {
		return c, errors.New("incomplete: want prefix, bridge, subnet and nodes")
	}
	return c.withDefaults()
}

// parseRecord reads cluster.json's content.
func parseRecord(data []byte, dir string) (Config, error) {
	var r record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Config{}, fmt.Errorf("%s: %w", filepath.Join(dir, recordFile), err)
	}
	c, err := r.config(dir)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", filepath.Join(dir, recordFile), err)
	}
	return c, nil
}

// readRecord loads StateDir/cluster.json; ok is false when there is none.
func readRecord(dir string) (c Config, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, recordFile))
	if errors.Is(err, os.ErrNotExist) {
		return Config{}, false, nil
	}
	if err != nil {
		return Config{}, false, fmt.Errorf("read cluster record: %w", err)
	}
	c, err = parseRecord(data, dir)
	return c, err == nil, err
}

func renderRecord(c Config) []byte {
	b, _ := json.MarshalIndent(recordOf(c), "", "  ") // plain strings and ints cannot fail
	return append(b, '\n')
}

// renderNodes is the nodes file `faultline run --nodes-file` reads.
func renderNodes(c Config) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# faultline cluster %q: bridge %s, host %s; name=address:port\n",
		c.Prefix, c.Bridge, c.hostPrefix().Addr())
	for i := 1; i <= c.Nodes; i++ {
		fmt.Fprintf(&b, "%s=%s:%d\n", nodeName(i), c.nodeAddr(i), SSHPort)
	}
	return b.Bytes()
}

// renderKnownHosts lists each node's host key under its address and name;
// hostKeys[i-1] is node i's public key line ("ssh-ed25519 AAAA... comment").
func renderKnownHosts(c Config, hostKeys []string) ([]byte, error) {
	var b bytes.Buffer
	for i := 1; i <= c.Nodes; i++ {
		f := strings.Fields(hostKeys[i-1])
		if len(f) < 2 {
			return nil, fmt.Errorf("host key of %s: malformed public key %q", nodeName(i), hostKeys[i-1])
		}
		fmt.Fprintf(&b, "%s,%s %s %s\n", c.nodeAddr(i), nodeName(i), f[0], f[1])
	}
	return b.Bytes(), nil
}

// renderHosts is every node's /etc/hosts.
func renderHosts(c Config) []byte {
	var b bytes.Buffer
	b.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	fmt.Fprintf(&b, "%s\tcontrol\n", c.hostPrefix().Addr())
	for i := 1; i <= c.Nodes; i++ {
		fmt.Fprintf(&b, "%s\t%s\n", c.nodeAddr(i), nodeName(i))
	}
	return b.Bytes()
}

// renderFstab lists node i's mounts for `mount -a -T`: a sysfs showing the
// node's own network devices, then binds of its /etc/hosts, /etc/hostname
// (when the host has one to cover) and private directories. The sysfs
// source is named so mount -a does not take the host's /sys for it.
func renderFstab(c Config, i int, hostname bool) []byte {
	var b bytes.Buffer
	b.WriteString("node-sysfs /sys sysfs rw,nosuid,nodev,noexec 0 0\n")
	dir := c.nodeDir(i)
	bind := func(src, dst string) {
		fmt.Fprintf(&b, "%s %s none bind 0 0\n", src, dst)
	}
	bind(filepath.Join(dir, "hosts"), "/etc/hosts")
	if hostname {
		bind(filepath.Join(dir, "hostname"), "/etc/hostname")
	}
	for _, p := range nodePrivate {
		bind(filepath.Join(dir, strings.TrimPrefix(p, "/")), p)
	}
	return b.Bytes()
}

// renderSSHDConfig is node i's sshd_config. StrictModes is off because
// StateDir may sit below a world-writable directory (/var/tmp in tests), and
// the files sshd reads are root's own; the sftp server is sshd's built-in one
// so uploads need no extra package.
func renderSSHDConfig(c Config, i int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# faultline cluster node %s\n", nodeName(i))
	fmt.Fprintf(&b, "ListenAddress %s:%d\n", c.nodeAddr(i), SSHPort)
	fmt.Fprintf(&b, "HostKey %s\n", filepath.Join(c.nodeDir(i), "ssh_host_ed25519_key"))
	fmt.Fprintf(&b, "AuthorizedKeysFile %s\n", c.path(authKeysFile))
	b.WriteString(sshdCommon)
	fmt.Fprintf(&b, "SetEnv FAULTLINE_NODE=%s\n", nodeName(i))
	return b.Bytes()
}

// sshdCommon is what netns and VM nodes' sshd_config share.
const sshdCommon = `PidFile none
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
PrintLastLog no
MaxStartups 200
MaxSessions 200
Subsystem sftp internal-sftp
LogLevel ERROR
`

// renderSSHConfig lets OpenSSH users type `ssh -F StateDir/ssh_config n1`.
// curve25519 because the default post-quantum exchange costs ~100 ms a
// connection on small machines.
func renderSSHConfig(c Config) []byte {
	var b bytes.Buffer
	for i := 1; i <= c.Nodes; i++ {
		fmt.Fprintf(&b, "Host %s\n  HostName %s\n", nodeName(i), c.nodeAddr(i))
	}
	fmt.Fprintf(&b, `Host *
  User root
  Port %d
  IdentityFile %s
  IdentitiesOnly yes
  UserKnownHostsFile %s
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 3
  LogLevel ERROR
  KexAlgorithms curve25519-sha256
`, SSHPort, c.path(clientKeyFile), c.path(knownHostsFile))
	return b.Bytes()
}

// writeFile writes data to path through a temporary file and a rename, so a
// crash never leaves a half-written nodes file or known_hosts.
func writeFile(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
