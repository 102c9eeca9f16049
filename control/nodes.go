package control

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// Node is one machine of the test. Name identifies it in histories, logs and
// Starlark; Host and Port say where its sshd listens (Port 0 means the
// configured default, usually 22).
type Node struct {
	Name string
	Host string
	Port int
	Dir  string // a local node's directory (--local); "" over SSH, where node.dir is LocalDir
}

// Addr returns host:port, using defaultPort when the node has none.
func (n Node) Addr(defaultPort int) string {
	p := n.Port
	if p == 0 {
		p = defaultPort
	}
	return net.JoinHostPort(n.Host, strconv.Itoa(p))
}

// ParseNode parses one node in any of these forms:
//
//	host                 name = host
//	host:port            name = host:port
//	[v6addr]:port        name = [v6addr]:port  (a bare v6addr has no port)
//	name=host[:port]     explicit name, as in cluster nodes files
func ParseNode(s string) (Node, error) {
	s = strings.TrimSpace(s)
	name, addr, named := strings.Cut(s, "=")
	if !named {
		name, addr = s, s
	}
	n := Node{Name: strings.TrimSpace(name)}
	host, port, err := splitHostPort(bracketV6(strings.TrimSpace(addr)))
	if err != nil {
		return Node{}, fmt.Errorf("node %q: %w", s, err)
	}
	n.Host, n.Port = host, port
	if err := checkName(n.Name); err != nil {
		return Node{}, fmt.Errorf("node %q: %w", s, err)
	}
	return n, nil
}

// bracketV6 brackets a bare IPv6 address, which cannot carry a port.
func bracketV6(s string) string {
	if strings.Count(s, ":") > 1 && !strings.HasPrefix(s, "[") {
		return "[" + s + "]"
	}
	return s
}

// splitHostPort accepts host, host:port, [v6] and [v6]:port.
func splitHostPort(s string) (string, int, error) {
	if s == "" {
		return "", 0, fmt.Errorf("empty address")
	}
	host, portStr := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, fmt.Errorf("missing ] in %q", s)
		}
		host, rest := s[1:end], s[end+1:]
		if rest != "" {
			if rest[0] != ':' || rest == ":" {
				return "", 0, fmt.Errorf("unexpected %q after ]", rest)
			}
			portStr = rest[1:]
		}
		if net.ParseIP(host) == nil || !strings.Contains(host, ":") {
			return "", 0, fmt.Errorf("%q is not an IPv6 address", host)
		}
		return withPort(host, portStr)
	case strings.Contains(s, ":"):
		host, portStr, _ = strings.Cut(s, ":")
		if portStr == "" {
			return "", 0, fmt.Errorf("empty port in %q", s)
		}
		if strings.Contains(portStr, ":") {
			return "", 0, fmt.Errorf("IPv6 address with a port must be written [addr]:port")
		}
	}
	if err := checkHost(host); err != nil {
		return "", 0, err
	}
	return withPort(host, portStr)
}

func withPort(host, portStr string) (string, int, error) {
	if portStr == "" {
		return host, 0, nil
	}
	p, err := strconv.Atoi(portStr)
	if err != nil || p < 1 || p > 65535 {
		return "", 0, fmt.Errorf("bad port %q (want 1-65535)", portStr)
	}
	return host, p, nil
}

// checkHost allows DNS names and IPv4 literals: letters, digits, '.', '-'
// and '_'. Anything else (spaces, quotes, shell syntax) is a typo or worse.
func checkHost(h string) error {
	if h == "" {
		return fmt.Errorf("empty host")
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return fmt.Errorf("host %q contains %q", h, c)
		}
	}
	return nil
}

// checkName allows what checkHost allows plus the ':', '[' and ']' of a
// host:port written as the name.
func checkName(n string) error {
	if n == "" {
		return fmt.Errorf("empty node name")
	}
	if strings.Trim(n, ".") == "" {
		// A node's name becomes a directory (its logs/<node>/, a --local
		// node's root): "." or ".." would be the parent itself or above it.
		return fmt.Errorf("node name %q names no directory of its own", n)
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(".-_:[]", c) >= 0) {
			return fmt.Errorf("node name %q contains %q", n, c)
		}
	}
	return nil
}

// ParseNodes parses the --nodes flag: nodes separated by commas (spaces
// around them allowed) or, in a list without commas, by spaces. Names must
// be unique. A comma-separated entry with a space inside ("n1,n 2,n3") is
// refused: it is a typo far more often than two nodes, and splitting it
// would silently test a cluster of another size.
func ParseNodes(flag string) ([]Node, error) {
	var entries []string
	if strings.Contains(flag, ",") {
		for _, e := range strings.Split(flag, ",") {
			e = strings.TrimSpace(e)
			if strings.ContainsAny(e, " \t\n") {
				return nil, fmt.Errorf("--nodes: entry %q has a space inside; separate nodes with commas, or only with spaces, not both", e)
			}
			if e != "" {
				entries = append(entries, e)
			}
		}
	} else {
		entries = strings.Fields(flag)
	}
	nodes, err := ParseNodeList(entries)
	if err != nil {
		return nil, fmt.Errorf("--nodes: %w", err)
	}
	return nodes, nil
}

// ParseNodeList parses one node per entry (a scenario's nodes list, say).
// Names must be unique.
func ParseNodeList(entries []string) ([]Node, error) {
	nodes := make([]Node, 0, len(entries))
	for _, e := range entries {
		n, err := ParseNode(e)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no nodes given")
	}
	if err := checkUnique(nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}

// ReadNodesFile reads a nodes file. Each line holds one node: any ParseNode
// form, or the whitespace-separated "name host [port]" form; '#' starts a
// comment and blank lines are skipped. Errors name the file and line.
func ReadNodesFile(path string) ([]Node, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("nodes file: %w", err)
	}
	defer f.Close()
	return ParseNodesFile(f, path)
}

// ParseNodesFile parses nodes-file text from r; name is used in errors.
func ParseNodesFile(r io.Reader, name string) ([]Node, error) {
	var nodes []Node
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		var n Node
		var err error
		switch len(fields) {
		case 0:
			continue
		case 1:
			n, err = ParseNode(fields[0])
		case 2, 3:
			n, err = parseFields(fields)
		default:
			err = fmt.Errorf("want one node per line (host, host:port, name=host:port or name host [port]), got %d fields", len(fields))
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		nodes = append(nodes, n)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%s: no nodes", name)
	}
	if err := checkUnique(nodes); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return nodes, nil
}

// parseFields handles "name host [port]".
func parseFields(f []string) (Node, error) {
	if strings.Contains(f[0], "=") {
		return Node{}, fmt.Errorf("node %q: use either name=host or name host, not both", f[0])
	}
	if err := checkName(f[0]); err != nil {
		return Node{}, err
	}
	addr := bracketV6(f[1])
	if len(f) == 3 {
		if strings.HasSuffix(addr, "]") || !strings.Contains(addr, ":") {
			addr += ":" + f[2]
		} else {
			return Node{}, fmt.Errorf("node %s: port given twice", f[0])
		}
	}
	host, port, err := splitHostPort(addr)
	if err != nil {
		return Node{}, fmt.Errorf("node %s: %w", f[0], err)
	}
	return Node{Name: f[0], Host: host, Port: port}, nil
}

func checkUnique(nodes []Node) error {
	seen := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if seen[n.Name] {
			return fmt.Errorf("node %s listed twice", n.Name)
		}
		seen[n.Name] = true
	}
	return nil
}
