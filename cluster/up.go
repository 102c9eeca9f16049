package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"
)

// Up builds the cluster, or makes an existing one whole: a healthy cluster
// of the same shape is left alone (Action Unchanged), broken nodes are
// rebuilt with their keys and files (Repaired), anything else, including a
// crash's leftovers, is torn down and built afresh (Created). A StateDir
// recording a cluster of another shape is refused: run Down first.
func Up(ctx context.Context, cfg Config) (*State, error) {
	start := time.Now()
	tools := toolsUp
	if cfg.VM {
		tools = toolsVM
	}
	paths, err := preflight(tools)
	if err != nil {
		return nil, err
	}
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(c.StateDir)
	// Down removes the parent again when Up made it (and nothing else is
	// in it), so that up then down leaves the host as it was.
	madeParent := false
	var unlock func()
	for range 3 { // a Down may remove the parent between MkdirAll and the lock
		if _, err := os.Stat(parent); errors.Is(err, os.ErrNotExist) {
			madeParent = true
		}
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return nil, fmt.Errorf("cluster up: %w", err)
		}
		if unlock, err = lockDir(ctx, parent); err == nil || !errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	defer unlock()

	rec, recorded, err := readRecord(c.StateDir)
	if err != nil {
		return nil, fmt.Errorf("%w (run down to remove it)", err)
	}
	if recorded && recordOf(rec) != recordOf(c) {
		return nil, fmt.Errorf("%s holds another cluster (%d nodes, prefix %s, bridge %s, subnet %s); run down first or choose another state dir",
			c.StateDir, rec.Nodes, rec.Prefix, rec.Bridge, rec.Subnet)
	}
	if err := checkSubnetFree(c); err != nil {
		return nil, err
	}
	st := newState(c)
	if c.VM {
		if err := upVM(ctx, c, recorded, madeParent, st); err != nil {
			return nil, err
		}
		st.Warnings = forwardWarnings(ctx)
		st.Elapsed = time.Since(start)
		return st, nil
	}
	var rep *StatusReport
	if recorded && filesIntact(c) && bridgeHealthy(c) {
		if rep, err = inspect(ctx, c, true); err != nil {
			return nil, err
		}
	}
	switch {
	case rep != nil && rep.Healthy():
		st.Action = Unchanged
		for i, n := range rep.Nodes {
			st.Nodes[i].PID = n.PID
		}
	case rep != nil:
		st.Action = Repaired
		if st.Repaired, err = repair(ctx, paths, c, rep); err != nil {
			return nil, err
		}
		if err := finish(ctx, c, st); err != nil {
			return nil, err
		}
	default:
		st.Action = Created
		if err := create(ctx, paths, c, recorded, madeParent, nil); err != nil {
			return nil, err
		}
		if err := finish(ctx, c, st); err != nil {
			return nil, err
		}
	}
	st.Warnings = forwardWarnings(ctx)
	st.Elapsed = time.Since(start)
	return st, nil
}

// filesIntact reports whether every key and config a repair would reuse is
// still in StateDir.
func filesIntact(c Config) bool {
	for _, f := range stateFiles {
		if _, err := os.Stat(c.path(f)); err != nil {
			return false
		}
	}
	for i := 1; i <= c.Nodes; i++ {
		for _, f := range []string{"ssh_host_ed25519_key", "ssh_host_ed25519_key.pub"} {
			if _, err := os.Stat(filepath.Join(c.nodeDir(i), f)); err != nil {
				return false
			}
		}
	}
	return true
}

// create builds the whole cluster after clearing whatever carries its names.
// On failure it removes what it built (sshd's log is in the error), so a
// failed Up leaves the host as it found it. madeParent says this Up created
// StateDir's parent; a rebuilt cluster keeps what its first Up noted.
// build makes the nodes and writes the client files once the keys exist
// (nil: netns nodes).
func create(ctx context.Context, paths map[string]string, c Config, recorded, madeParent bool, build func() error) (err error) {
	h, err := findHostNet(c)
	if err != nil {
		return err
	}
	if err := teardown(ctx, paths, c, h, allIndices(c, h)); err != nil {
		return err
	}
	if recorded {
		if _, err := os.Stat(c.path(madeParentFile)); err == nil {
			madeParent = true
		}
		if err := removeStateDir(c.StateDir); err != nil {
			return err
		}
	} else if err := checkEmptyDir(c.StateDir); err != nil {
		return err
	}
	if err := os.MkdirAll(c.StateDir, 0o755); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	// The record goes first: from here on Down recognises StateDir as ours.
	if err := writeFile(c.path(recordFile), renderRecord(c), 0o644); err != nil {
		return err
	}
	if madeParent {
		if err := writeFile(c.path(madeParentFile), []byte(filepath.Dir(c.StateDir)+"\n"), 0o644); err != nil {
			return err
		}
	}
	defer func() {
		if err == nil {
			return
		}
		h, ferr := findHostNet(c)
		if ferr == nil {
			ferr = teardown(context.WithoutCancel(ctx), paths, c, h, allIndices(c, h))
		}
		if ferr == nil {
			ferr = removeStateDirAndParent(c.StateDir)
		}
		if ferr != nil {
			err = errors.Join(err, fmt.Errorf("clean up after failed up (run down): %w", ferr))
		}
	}()
	pub, err := keygen(c.path(clientKeyFile), "faultline-cluster-"+c.Prefix)
	if err != nil {
		return err
	}
	if err := writeFile(c.path(authKeysFile), []byte(pub+"\n"), 0o600); err != nil {
		return err
	}
	if build != nil {
		return build()
	}
	all := make([]int, c.Nodes)
	for i := range all {
		all[i] = i + 1
	}
	if err := buildNodes(ctx, paths, c, all, true); err != nil {
		return err
	}
	return writeClientFiles(c)
}

// checkEmptyDir refuses to adopt a StateDir that holds someone's files.
func checkEmptyDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(ents) == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	return fmt.Errorf("state dir %s is not empty and holds no %s; refusing to use it", dir, recordFile)
}

// buildNodes creates the given nodes and waits until each one's sshd
// answers; a fresh cluster (newCluster) also gets the bridge and new host
// keys, while a repair keeps the old keys so known_hosts stays valid.
func buildNodes(ctx context.Context, paths map[string]string, c Config, nodes []int, newCluster bool) error {
	for _, i := range nodes {
		if err := prepareNode(c, i); err != nil {
			return err
		}
		if newCluster {
			if _, err := keygen(filepath.Join(c.nodeDir(i), "ssh_host_ed25519_key"), nodeName(i)); err != nil {
				return err
			}
		}
	}
	if err := createNet(ctx, paths["ip"], c, nodes, newCluster); err != nil {
		return err
	}
	exited := make([]<-chan error, len(nodes))
	for k, i := range nodes {
		var err error
		if exited[k], err = start(paths, c, i); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for k, i := range nodes {
		g.Go(func() error { return waitReady(gctx, c, i, exited[k]) })
	}
	return g.Wait()
}

// writeClientFiles writes known_hosts, the nodes file and ssh_config: what
// a client needs, written once every host key exists.
func writeClientFiles(c Config) error {
	keys := make([]string, c.Nodes)
	for i := 1; i <= c.Nodes; i++ {
		k, err := readPublicKey(filepath.Join(c.nodeDir(i), "ssh_host_ed25519_key.pub"))
		if err != nil {
			return err
		}
		keys[i-1] = k
	}
	kh, err := renderKnownHosts(c, keys)
	if err != nil {
		return err
	}
	if err := writeFile(c.path(knownHostsFile), kh, 0o644); err != nil {
		return err
	}
	if err := writeFile(c.path(sshConfigFile), renderSSHConfig(c), 0o644); err != nil {
		return err
	}
	return writeFile(c.path(nodesFile), renderNodes(c), 0o644)
}

// finish checks the result the way Status would and records each node's
// sshd PID, so Up never reports success for a cluster that is not whole.
func finish(ctx context.Context, c Config, st *State) error {
	rep, err := inspect(ctx, c, true)
	if err != nil {
		return err
	}
	if !rep.Healthy() {
		return fmt.Errorf("cluster up: not healthy afterwards: %s", rep.Summary())
	}
	for i, n := range rep.Nodes {
		st.Nodes[i].PID = n.PID
		if c.VM {
			continue // QEMU wrote its own qemu.pid
		}
		pid := []byte(strconv.Itoa(n.PID) + "\n")
		if err := writeFile(filepath.Join(st.Nodes[i].Dir, "sshd.pid"), pid, 0o644); err != nil {
			return err
		}
	}
	return nil
}
