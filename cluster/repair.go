package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// repair rebuilds the nodes rep finds unhealthy, in place, and removes
// stray namespaces and links with the prefix; it returns what it changed.
func repair(ctx context.Context, paths map[string]string, c Config, rep *StatusReport) ([]string, error) {
	var changed []string
	if len(rep.Strays) > 0 {
		h, err := findHostNet(c)
		if err != nil {
			return nil, err
		}
		stray := hostNet{namespaces: beyond(c, h.namespaces), links: beyond(c, h.links)}
		extra := allIndices(c, stray)[c.Nodes:] // allIndices lists 1..c.Nodes first
		if err := teardown(ctx, paths, c, stray, extra); err != nil {
			return nil, err
		}
		changed = append(changed, "removed "+strings.Join(rep.Strays, ", "))
	}
	var broken []int
	var h hostNet
	for i, n := range rep.Nodes {
		if n.Healthy() {
			continue
		}
		broken = append(broken, i+1)
		changed = append(changed, n.Name)
		if _, err := os.Stat(filepath.Join(netnsDir, n.Namespace)); err == nil {
			h.namespaces = append(h.namespaces, n.Namespace)
		}
		if linkExists(n.Namespace) {
			h.links = append(h.links, n.Namespace)
		}
	}
	if len(broken) == 0 {
		return changed, nil
	}
	if err := teardown(ctx, paths, c, h, broken); err != nil {
		return nil, err
	}
	if err := buildNodes(ctx, paths, c, broken, false); err != nil {
		return nil, err
	}
	return changed, nil
}
