package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// Down removes the cluster: every process in its namespaces, the namespaces,
// veths and bridge, then StateDir. A cluster recorded in cfg.StateDir is
// removed as recorded (its prefix and bridge win over cfg's); without a
// record, leftovers named with cfg's prefix and bridge are still removed.
// Running it twice, or with nothing there, is fine.
func Down(ctx context.Context, cfg Config) error {
	paths, err := preflight(toolsDown)
	if err != nil {
		return err
	}
	c, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	parent := filepath.Dir(c.StateDir)
	if _, err := os.Stat(parent); err == nil {
		unlock, err := lockDir(ctx, parent)
		switch {
		case err == nil:
			defer unlock()
		case !errors.Is(err, os.ErrNotExist): // gone: another Down removed it all
			return err
		}
	}
	rec, recorded, recErr := readRecord(c.StateDir)
	if recorded {
		c = rec
	}
	h, err := findHostNet(c)
	if err != nil {
		return err
	}
	if err := teardown(ctx, paths, c, h, allIndices(c, h)); err != nil {
		return err
	}
	// A corrupt record still marks StateDir as the cluster's.
	if recorded || recErr != nil {
		return removeStateDirAndParent(c.StateDir)
	}
	return nil
}

// removeStateDirAndParent is removeStateDir, then removes StateDir's parent
// as well when the Up that made the cluster created it (its note
// madeParentFile is in StateDir) and it is empty: up and down with the
// default /var/lib/faultline/cluster leave no /var/lib/faultline behind,
// while a parent that was there before, or holds anything, stays.
func removeStateDirAndParent(dir string) error {
	_, err := os.Stat(filepath.Join(dir, madeParentFile))
	madeParent := err == nil
	if err := removeStateDir(dir); err != nil {
		return err
	}
	if !madeParent {
		return nil
	}
	if err := os.Remove(filepath.Dir(dir)); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
		return fmt.Errorf("remove %s, which cluster up created: %w", filepath.Dir(dir), err)
	}
	return nil
}

// teardown kills every process in h's namespaces (and any sshd or launcher
// of nodes, even if its namespace lost its name), lets their sockets close
// while the bridge is still up, then deletes h's links and namespaces, and
// the bridge when h.bridge is set.
func teardown(ctx context.Context, paths map[string]string, c Config, h hostNet, nodes []int) error {
	nets := make(map[nsID]string, len(h.namespaces))
	for _, ns := range h.namespaces {
		if id, ok := namedNetns(ns); ok {
			nets[id] = ns
		}
	}
	configs := make(map[string]bool, len(nodes))
	for _, i := range nodes {
		configs[c.sshdConfigPath(i)] = true
	}
	if err := stopVMs(ctx, c, nodes); err != nil {
		return fmt.Errorf("tear down cluster %s: %w", c.Prefix, err)
	}
	if err := killAll(ctx, nets, configs); err != nil {
		return fmt.Errorf("tear down cluster %s: %w", c.Prefix, err)
	}
	settleSockets(ctx, h.namespaces)
	if err := deleteNet(ctx, paths["ip"], h, c.Bridge); err != nil {
		return fmt.Errorf("tear down cluster %s: %w", c.Prefix, err)
	}
	return nil
}

// allIndices is 1..c.Nodes plus every node index named in h, so leftovers of
// a larger earlier cluster go too.
func allIndices(c Config, h hostNet) []int {
	seen := make(map[int]bool)
	var out []int
	add := func(i int) {
		if i > 0 && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	for i := 1; i <= c.Nodes; i++ {
		add(i)
	}
	for _, names := range [][]string{h.namespaces, h.links} {
		for _, n := range names {
			add(c.nodeIndex(n))
		}
	}
	return out
}

// stateFiles are the cluster-wide files Up writes into StateDir.
var stateFiles = []string{nodesFile, knownHostsFile, clientKeyFile, clientKeyFile + ".pub", authKeysFile, sshConfigFile}

// removeStateDir deletes what Up wrote, the record last so that a crash
// half-way leaves a directory Down still recognises; files someone else put
// there stay, and then so does the directory.
func removeStateDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove state dir: %w", err)
	}
	for _, e := range ents {
		if e.IsDir() && isNodeName(e.Name()) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("remove state dir: %w", err)
			}
		}
	}
	for _, f := range slices.Concat(stateFiles, []string{madeParentFile, recordFile}) {
		for _, p := range []string{filepath.Join(dir, f), filepath.Join(dir, f+".tmp")} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove state dir: %w", err)
			}
		}
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove state dir %s (left in place, it holds files faultline did not write): %w", dir, err)
	}
	return nil
}
