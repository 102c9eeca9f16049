package cluster

import (
	"fmt"
	"io"
	"net/netip"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Defaults of Config.
const (
	DefaultStateDir = "/var/lib/faultline/cluster"
	DefaultSubnet   = "10.77.0.0/24"
	DefaultPrefix   = "fl"
	DefaultNodes    = 5
)

// SSHPort is the port every node's sshd listens on.
const SSHPort = 22

// nodeOffset puts node nX at subnet base + nodeOffset + X, leaving the low
// addresses for the host and anything a test wants to add beside it.
const nodeOffset = 10

// maxNodes keeps interface names (<prefix>-nXXX) within the kernel's 15 bytes.
const maxNodes = 999

// Config says which cluster to build or act on. Zero fields take defaults.
type Config struct {
	// Nodes is the number of nodes, n1..nN (default 5).
	Nodes int
	// StateDir holds keys, configs, the nodes file and the nodes' private
	// directories (default /var/lib/faultline/cluster). It must be absolute
	// and not under /opt, /tmp, /root or /run, which nodes replace with their
	// own copies and so could not see it.
	StateDir string
	// Subnet is the IPv4 network of the bridge (default 10.77.0.0/24).
	Subnet string
	// Bridge is the bridge's name (default <prefix>-br).
	Bridge string
	// Prefix names everything the cluster creates: namespaces and host-side
	// veths are <prefix>-nX (default "fl").
	Prefix string

	// VM makes every node a QEMU virtual machine with its own Debian
	// kernel instead of a network namespace (see vm.go); the node's link
	// on the bridge is then a tap named <prefix>-nX.
	VM bool
	// Packages are extra Debian packages baked into the VM image (VM only).
	Packages []string
	// Rebuild builds the VM image again even when a cached one matches.
	Rebuild bool
	// ImageCache is where VM images are cached (default DefaultImageCache).
	ImageCache string
	// MemoryMB is each VM's memory (default 256).
	MemoryMB int
	// Log receives progress of slow steps (a VM image build); nil
	// discards it.
	Log io.Writer
}

var (
	prefixRE = regexp.MustCompile(`^[a-z][a-z0-9]{0,7}$`)
	bridgeRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,15}$`)
	// The state dir is written unquoted into sshd_config, ssh_config and
	// fstab files, so it keeps to characters none of them treat specially.
	stateDirRE = regexp.MustCompile(`^[A-Za-z0-9_.+/-]+$`)
)

// nodePrivate are the paths each node replaces with its own directory.
var nodePrivate = []string{"/opt", "/tmp", "/root", "/run"}

// withDefaults fills zero fields and checks the result, so every later step
// can trust names and addresses.
func (c Config) withDefaults() (Config, error) {
	if c.Nodes == 0 {
		c.Nodes = DefaultNodes
	}
	if c.StateDir == "" {
		c.StateDir = DefaultStateDir
	}
	if c.Subnet == "" {
		c.Subnet = DefaultSubnet
	}
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if c.Bridge == "" {
		c.Bridge = c.Prefix + "-br"
	}
	if c.ImageCache == "" {
		c.ImageCache = DefaultImageCache
	}
	if c.MemoryMB == 0 {
		c.MemoryMB = defaultMemoryMB
	}
	c.Packages = normalPackages(c.Packages)
	if err := c.validate(); err != nil {
		return c, fmt.Errorf("cluster config: %w", err)
	}
	c.StateDir = filepath.Clean(c.StateDir)
	p, _ := netip.ParsePrefix(c.Subnet)
	c.Subnet = p.Masked().String()
	return c, nil
}

func (c Config) validate() error {
	if !prefixRE.MatchString(c.Prefix) {
		return fmt.Errorf("prefix %q: want a lower-case letter then up to 7 letters or digits", c.Prefix)
	}
	if !bridgeRE.MatchString(c.Bridge) {
		return fmt.Errorf("bridge %q: want 1-15 letters, digits, '_', '.' or '-'", c.Bridge)
	}
	if c.isNodeLink(c.Bridge) {
		return fmt.Errorf("bridge %q: collides with the node link names %s-nX", c.Bridge, c.Prefix)
	}
	if !stateDirRE.MatchString(c.StateDir) {
		return fmt.Errorf("state dir %q: use only letters, digits and . _ + - / (the path goes into sshd and fstab files)", c.StateDir)
	}
	if !filepath.IsAbs(c.StateDir) {
		return fmt.Errorf("state dir %q: must be an absolute path", c.StateDir)
	}
	dir := filepath.Clean(c.StateDir)
	if dir == "/" {
		return fmt.Errorf("state dir %q: must not be /", c.StateDir)
	}
	for _, p := range nodePrivate {
		if dir == p || strings.HasPrefix(dir, p+"/") {
			return fmt.Errorf("state dir %q: nodes mount their own %s, so they could not see it there; choose a path outside /opt, /tmp, /root and /run", c.StateDir, p)
		}
	}
	p, err := netip.ParsePrefix(c.Subnet)
	if err != nil {
		return fmt.Errorf("subnet: %w", err)
	}
	if !p.Addr().Is4() {
		return fmt.Errorf("subnet %s: must be IPv4", c.Subnet)
	}
	if err := checkPackages(c.Packages); err != nil {
		return err
	}
	if len(c.Packages) > 0 && !c.VM {
		return fmt.Errorf("packages %s: only VM nodes have an image to put packages in (add --vm)", strings.Join(c.Packages, ","))
	}
	if c.MemoryMB < 128 {
		return fmt.Errorf("memory: %d MB, want at least 128", c.MemoryMB)
	}
	if c.Nodes < 1 {
		return fmt.Errorf("nodes: %d, want at least 1", c.Nodes)
	}
	if limit := min(capacity(p), maxNodes); c.Nodes > limit {
		return fmt.Errorf("nodes: %d do not fit in subnet %s (at most %d)", c.Nodes, c.Subnet, limit)
	}
	return nil
}

// capacity is how many nodes fit in p: all addresses but the network, the
// broadcast and the nodeOffset low ones (the host's among them).
func capacity(p netip.Prefix) int {
	bits := 32 - p.Bits()
	if bits > 16 {
		bits = 16 // plenty; avoids overflow talk for /0../15
	}
	return max((1<<bits)-2-nodeOffset, 0)
}

// hostPrefix is the host's address on the bridge, with the subnet's length.
func (c Config) hostPrefix() netip.Prefix {
	p := netip.MustParsePrefix(c.Subnet)
	return netip.PrefixFrom(nth(p.Addr(), 1), p.Bits())
}

// nodeAddr is node i's address (i counts from 1).
func (c Config) nodeAddr(i int) netip.Addr {
	return nth(netip.MustParsePrefix(c.Subnet).Addr(), nodeOffset+i)
}

// nodePrefix is node i's address with the subnet's length, as eth0 gets it.
func (c Config) nodePrefix(i int) netip.Prefix {
	return netip.PrefixFrom(c.nodeAddr(i), netip.MustParsePrefix(c.Subnet).Bits())
}

// nth adds k to an IPv4 address.
func nth(a netip.Addr, k int) netip.Addr {
	b := a.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v += uint32(k)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// nodeName is "n<i>".
func nodeName(i int) string { return "n" + strconv.Itoa(i) }

// nsName is node i's network namespace, also the name of its host-side veth.
func (c Config) nsName(i int) string { return c.Prefix + "-" + nodeName(i) }

// isNodeLink reports whether name is a namespace or veth name this prefix
// would create, so Down can find leftovers without a state directory.
func (c Config) isNodeLink(name string) bool { return c.nodeIndex(name) > 0 }

// nodeIndex is i for the namespace or link name <prefix>-n<i>, else 0.
func (c Config) nodeIndex(name string) int {
	rest, ok := strings.CutPrefix(name, c.Prefix+"-")
	if !ok || !isNodeName(rest) {
		return 0
	}
	i, _ := strconv.Atoi(rest[1:])
	return i
}

// isNodeName reports whether name is n1..n999 as nodeName writes it.
func isNodeName(name string) bool {
	rest, ok := strings.CutPrefix(name, "n")
	if !ok || rest == "" || rest[0] == '0' || len(rest) > 3 {
		return false
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// nodeDir is node i's directory under StateDir.
func (c Config) nodeDir(i int) string { return filepath.Join(c.StateDir, nodeName(i)) }

// sshdConfigPath is node i's sshd config; a process with it as an argument
// is that node's sshd or launcher, even after its namespace lost its name.
func (c Config) sshdConfigPath(i int) string { return filepath.Join(c.nodeDir(i), "sshd_config") }

// Paths of the cluster-wide files in StateDir.
func (c Config) path(name string) string { return filepath.Join(c.StateDir, name) }

const (
	recordFile     = "cluster.json"
	nodesFile      = "nodes"
	knownHostsFile = "known_hosts"
	clientKeyFile  = "id_ed25519"
	authKeysFile   = "authorized_keys"
	sshConfigFile  = "ssh_config"
	madeParentFile = "made-parent" // present when Up created StateDir's parent
)
