package gen

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxConcurrency bounds the number of client threads (one goroutine each).
const MaxConcurrency = 1 << 16

// ParseConcurrency parses a concurrency setting: a positive count ("5") or a
// multiple of the node count ("2n", "n").
func ParseConcurrency(v string, nodes int) (int, error) {
	s := strings.TrimSpace(v)
	var n int
	if k, ok := strings.CutSuffix(s, "n"); ok {
		mult := 1
		if k != "" {
			m, err := strconv.Atoi(k)
			if err != nil || m < 1 {
				return 0, fmt.Errorf("concurrency %q: want a count like 5 or a node multiple like 2n", v)
			}
			mult = m
		}
		if nodes < 1 {
			return 0, fmt.Errorf("concurrency %q is a multiple of the node count, but there are no nodes", v)
		}
		if mult > MaxConcurrency/nodes {
			return 0, fmt.Errorf("concurrency %q with %d nodes exceeds %d", v, nodes, MaxConcurrency)
		}
		n = mult * nodes
	} else {
		c, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("concurrency %q: want a count like 5 or a node multiple like 2n", v)
		}
		n = c
	}
	if n < 1 || n > MaxConcurrency {
		return 0, fmt.Errorf("concurrency %q is out of range 1..%d", v, MaxConcurrency)
	}
	return n, nil
}
