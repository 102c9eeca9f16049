package control

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// SlowdownDirective starts the nodes-file comment line in which a VM
// cluster records how much slower its nodes are than the host
// ("# faultline: slowdown=8.2"; faultline cluster up --vm writes it). Other
// readers of the file see only a comment.
const SlowdownDirective = "# faultline: slowdown="

// MaxTimeoutScale caps how far ScaleTimeout stretches a timeout. The
// slowdown is measured with an interpreted shell loop, the worst case of
// emulation (a Debian VM under software emulation measured 4x on gzip,
// 7x on sha256, 30-50x on such loops); an op timeout mostly waits on the
// network and syscalls, and stretching it 50x would let one stuck op
// outlast every fault window of a run.
const MaxTimeoutScale = 10

// ReadNodesFileSlowdown returns the slowdown a nodes file records; ok is
// false when it records none (netns and hand-written files).
func ReadNodesFileSlowdown(path string) (slowdown float64, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, fmt.Errorf("nodes file: %w", err)
	}
	defer f.Close()
	return ParseNodesFileSlowdown(f, path)
}

// ParseNodesFileSlowdown reads the slowdown directive from nodes-file text;
// name is used in errors, which name the line.
func ParseNodesFileSlowdown(r io.Reader, name string) (float64, bool, error) {
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		rest, found := strings.CutPrefix(strings.TrimSpace(sc.Text()), SlowdownDirective)
		if !found {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err != nil || f < 1 || f > 10000 {
			return 0, false, fmt.Errorf("%s:%d: slowdown %q: want a number from 1 to 10000", name, line, strings.TrimSpace(rest))
		}
		return f, true, nil
	}
	if err := sc.Err(); err != nil {
		return 0, false, fmt.Errorf("%s: %w", name, err)
	}
	return 0, false, nil
}

// SetSlowdown records how many times slower than the host the pool's nodes
// run (1 or less: not slower); ScaleTimeout then stretches timeouts by it.
func (p *Pool) SetSlowdown(f float64) {
	if p != nil {
		p.slowdown = f
	}
}

// Slowdown is what SetSlowdown recorded, 1 when nothing was.
func (p *Pool) Slowdown() float64 {
	if p == nil || p.slowdown < 1 {
		return 1
	}
	return p.slowdown
}

// Scale is the factor budgets allow slow nodes: the slowdown, capped at
// MaxTimeoutScale, and 1 for nodes as fast as the host.
func (p *Pool) Scale() float64 { return min(p.Slowdown(), MaxTimeoutScale) }

// ScaleTimeout stretches d by the pool's Scale: op timeouts and readiness
// waits on slow (emulated) nodes. A nil pool and a zero d are left alone.
func (p *Pool) ScaleTimeout(d time.Duration) time.Duration {
	f := p.Scale()
	if d <= 0 || f <= 1 {
		return d
	}
	return time.Duration(float64(d) * f)
}
