package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/nodeclock"
)

// VMInfo is what a VM cluster's Up measured and chose, kept in cluster.json
// (key "vm_info") and shown by Status.
type VMInfo struct {
	Image         string  `json:"image"`          // image cache directory
	KernelRelease string  `json:"kernel_release"` // uname -r in the guests
	KernelPackage string  `json:"kernel_package"`
	Accel         string  `json:"accel"` // "kvm" or "tcg"
	AccelReason   string  `json:"accel_reason"`
	MemoryMB      int     `json:"memory_mb"`
	ImageBuildSec float64 `json:"image_build_seconds,omitempty"` // when this Up built the image
	BootSec       float64 `json:"boot_seconds"`                  // QEMU start to every sshd answering
	// Slowdown is how many times longer a fixed CPU-bound shell loop takes
	// on the slowest node than on the host, all nodes measured at once:
	// what run budgets, op timeouts and readiness waits scale by.
	Slowdown   float64      `json:"slowdown"`
	HostLoopMS float64      `json:"host_loop_ms"`
	Nodes      []VMNodeInfo `json:"nodes"`
}

// VMNodeInfo is one VM node's measurements after boot.
type VMNodeInfo struct {
	Name     string  `json:"name"`
	LoopMS   float64 `json:"loop_ms"`  // the speed loop on the node
	Slowdown float64 `json:"slowdown"` // LoopMS / the host's
	// ClockOffsetMS is the node's clock minus the controller's after the
	// post-boot sync, true within ±ClockBoundMS (half a round trip).
	ClockOffsetMS float64 `json:"clock_offset_ms"`
	ClockBoundMS  float64 `json:"clock_bound_ms"`
}

// speedLoop is the fixed CPU-bound work timed on the node and on the host
// with the same Debian dash: it prints its own duration in nanoseconds, so
// no SSH latency enters the measurement.
const speedLoop = `s=$(date +%s%N); i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done; e=$(date +%s%N); echo $((e-s))`

// upVM is Up for VM nodes: a healthy cluster of the same shape is left
// alone; anything else is built afresh (VM nodes are not repaired one by
// one: a rebuilt node would need its clock synced and speed measured anew,
// and a new boot is as fast as a repair).
func upVM(ctx context.Context, c Config, recorded, madeParent bool, st *State) error {
	paths, err := toolPaths(toolsVM, exec.LookPath)
	if err != nil {
		return err
	}
	if recorded && filesIntact(c) && bridgeHealthy(c) {
		rep, err := inspect(ctx, c, true)
		if err != nil {
			return err
		}
		if rep.Healthy() && !c.Rebuild {
			st.Action = Unchanged
			for i, n := range rep.Nodes {
				st.Nodes[i].PID = n.PID
			}
			st.VM = rep.VM
			return nil
		}
	}
	img, err := EnsureImage(ctx, ImageConfig{Packages: c.Packages, CacheDir: c.ImageCache, Rebuild: c.Rebuild, Log: c.Log})
	if err != nil {
		return err
	}
	accel := chooseAccel(ctx, paths["qemu-system-x86_64"], img)
	st.Action = Created
	var bootSec float64
	boot := func() error {
		start := time.Now()
		if err := bootVMs(ctx, paths, c, img, accel.Accel); err != nil {
			return err
		}
		bootSec = time.Since(start).Seconds()
		return writeClientFiles(c)
	}
	if err := create(ctx, paths, c, recorded, madeParent, boot); err != nil {
		return err
	}
	info := &VMInfo{Image: img.Dir, KernelRelease: img.KernelRelease, KernelPackage: img.KernelPackage + " " + img.KernelVersion,
		Accel: accel.Accel, AccelReason: accel.Reason, MemoryMB: c.MemoryMB, BootSec: bootSec}
	if img.Built {
		info.ImageBuildSec = img.BuildTime.Seconds()
	}
	if err := settleVMs(ctx, c, info); err != nil {
		return errors.Join(err, Down(context.WithoutCancel(ctx), c))
	}
	if err := writeVMFiles(c, info); err != nil {
		return err
	}
	st.VM = info
	return finish(ctx, c, st)
}

// settleVMs syncs every node's clock to the controller's and measures the
// nodes' speed, over SSH with the cluster's own files.
func settleVMs(ctx context.Context, c Config, info *VMInfo) error {
	remotes, closeAll, err := dialNodes(ctx, c)
	if err != nil {
		return err
	}
	defer closeAll()
	info.Nodes = make([]VMNodeInfo, c.Nodes)
	// One node at a time, so the measurements' round trips stay short.
	for k, r := range remotes {
		o, err := nodeclock.Sync(ctx, r, c.nodeAddr(k+1).String(), 5*time.Millisecond, 5)
		if err != nil {
			return fmt.Errorf("sync VM clocks: %w", err)
		}
		info.Nodes[k] = VMNodeInfo{Name: nodeName(k + 1), ClockOffsetMS: ms(o.Offset), ClockBoundMS: ms(o.Bound)}
	}
	host, err := hostLoop(ctx)
	if err != nil {
		return err
	}
	info.HostLoopMS = ms(host)
	g, gctx := errgroup.WithContext(ctx)
	for k, r := range remotes {
		g.Go(func() error {
			res, err := r.Run(gctx, control.Cmd{Raw: speedLoop, Timeout: 5 * time.Minute, Label: "speed loop"})
			if err != nil {
				return fmt.Errorf("measure speed of %s: %w", r.Node(), err)
			}
			d, err := parseLoop(res.Stdout)
			if err != nil {
				return fmt.Errorf("measure speed of %s: %w", r.Node(), err)
			}
			info.Nodes[k].LoopMS, info.Nodes[k].Slowdown = ms(d), round2(float64(d)/float64(host))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	info.Slowdown = 1
	for _, n := range info.Nodes {
		info.Slowdown = max(info.Slowdown, n.Slowdown)
	}
	return nil
}

// hostLoop times speedLoop on the host: the best of three, since other
// work on the host only ever makes it slower.
func hostLoop(ctx context.Context) (time.Duration, error) {
	var best time.Duration
	for k := 0; k < 3; k++ {
		out, err := run(ctx, nil, "/bin/sh", "-c", speedLoop)
		if err != nil {
			return 0, fmt.Errorf("measure host speed: %w", err)
		}
		d, err := parseLoop(out)
		if err != nil {
			return 0, fmt.Errorf("measure host speed: %w", err)
		}
		if k == 0 || d < best {
			best = d
		}
	}
	return best, nil
}

func parseLoop(out []byte) (time.Duration, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("speed loop printed %q, want nanoseconds", bytes.TrimSpace(out))
	}
	return time.Duration(n), nil
}

func ms(d time.Duration) float64 { return round2(float64(d) / float64(time.Millisecond)) }

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// dialNodes opens one SSH connection per node with the cluster's client key
// and known_hosts (strict: the host keys were generated on the host).
func dialNodes(ctx context.Context, c Config) ([]control.Remote, func(), error) {
	cfg := control.SSHConfig{User: "root", KeyFiles: []string{c.path(clientKeyFile)}, KnownHosts: c.path(knownHostsFile)}
	remotes := make([]control.Remote, c.Nodes)
	var mu sync.Mutex
	closeAll := func() {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range remotes {
			if r != nil {
				r.Close()
			}
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for k := range remotes {
		g.Go(func() error {
			n := control.Node{Name: nodeName(k + 1), Host: c.nodeAddr(k + 1).String(), Port: SSHPort}
			r, err := control.DialSSH(gctx, n, cfg)
			if err != nil {
				return err
			}
			mu.Lock()
			remotes[k] = r
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("reach VM nodes over ssh: %w", err)
	}
	return remotes, closeAll, nil
}

// SlowdownDirective is control.SlowdownDirective, which the nodes file of a VM
// cluster carries (its measured slowdown), for runs to scale their timeouts.
const SlowdownDirective = control.SlowdownDirective

// writeVMFiles records info in cluster.json and puts the VM facts and the
// slowdown directive into the nodes file's comments.
func writeVMFiles(c Config, info *VMInfo) error {
	r := recordOf(c)
	r.Info = info
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("write cluster record: %w", err)
	}
	if err := writeFile(c.path(recordFile), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var nodes bytes.Buffer
	fmt.Fprintf(&nodes, "# faultline VM cluster %q: kernel %s, %s; %d MB per node\n", c.Prefix, info.KernelRelease, info.AccelReason, info.MemoryMB)
	fmt.Fprintf(&nodes, "# a CPU-bound loop runs %.1fx slower on the slowest node than on the host; runs scale op timeouts and readiness waits by it (at most %dx):\n", info.Slowdown, control.MaxTimeoutScale)
	fmt.Fprintf(&nodes, "%s%g\n", SlowdownDirective, info.Slowdown)
	nodes.Write(renderNodes(c))
	return writeFile(c.path(nodesFile), nodes.Bytes(), 0o644)
}

// readVMInfo loads the VMInfo Up recorded, nil when there is none yet.
func readVMInfo(dir string) *VMInfo {
	b, err := os.ReadFile(filepath.Join(dir, recordFile))
	if err != nil {
		return nil
	}
	var r record
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	return r.Info
}

// inspectVM fills the per-node state of a VM cluster: tap up on the
// bridge, QEMU running, sshd port answering.
func inspectVM(ctx context.Context, c Config, st *StatusReport) {
	st.VM = readVMInfo(c.StateDir)
	st.Nodes = make([]NodeStatus, c.Nodes)
	var wg sync.WaitGroup
	for i := 1; i <= c.Nodes; i++ {
		n := &st.Nodes[i-1]
		n.Name, n.Namespace, n.VM = nodeName(i), c.nsName(i), true
		n.Addr = c.nodeAddrPort(i)
		n.Link = nodeLinkHealthy(c, i)
		n.PID = vmPID(c, i)
		n.SSHD = n.PID != 0
		wg.Go(func() { n.Reachable = probeTCP(ctx, n.Addr, probeTimeout) == nil })
	}
	wg.Wait()
}
