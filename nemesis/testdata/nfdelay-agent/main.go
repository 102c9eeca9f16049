// Command nfdelay-agent stands in for the faultline binary in the nemesis
// tests (a test binary cannot be uploaded as the agent): it serves
// `agent nfdelay ...` exactly as faultline does.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/faultline/faultline/agent/nfdelay"
)

func main() {
	args := os.Args[1:]
	if len(args) < 2 || args[0] != "agent" || args[1] != "nfdelay" {
		fmt.Fprintln(os.Stderr, "usage: nfdelay-agent agent nfdelay [flags]")
		os.Exit(2)
	}
	if err := nfdelay.Main(context.Background(), args[2:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
