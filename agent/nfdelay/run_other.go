//go:build !linux

package nfdelay

import (
	"context"
	"fmt"
	"runtime"
)

// Run fails on this system: NFQUEUE and the nfnetlink socket the agent
// serves it through are Linux's. The configuration is still checked first,
// so a bad command line is reported as such everywhere.
func Run(ctx context.Context, c Config) error {
	if c.Delay < 0 || c.Jitter < 0 {
		return fmt.Errorf("nfdelay: negative delay %v or jitter %v", c.Delay, c.Jitter)
	}
	return fmt.Errorf("nfdelay: the packet-delay agent needs Linux netfilter (NFQUEUE), and this is %s", runtime.GOOS)
}
