package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PruneImages removes the cached VM images of cacheDir other than keep (a
// cache key; "" keeps none), and any build a killed run left half done.
// An image a running VM still boots from (a QEMU process naming its
// directory) is kept, and said so. It returns what it removed and what it
// kept because it was in use. Each image is ~600 MB, and a new Debian
// kernel or package list makes a new one, so old ones pile up otherwise.
func PruneImages(ctx context.Context, cacheDir, keep string) (removed, inUse []string, err error) {
	if cacheDir == "" {
		cacheDir = DefaultImageCache
	}
	entries, err := os.ReadDir(cacheDir)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("vm image cache: %w", err)
	}
	unlock, err := lockDir(ctx, cacheDir) // no build runs while we prune
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	busy := runningQEMU()
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name == keep || !imageDirName(name) {
			continue
		}
		dir := filepath.Join(cacheDir, name)
		if mentions(busy, dir) {
			inUse = append(inUse, dir)
			continue
		}
		if err := removeBuildDir(dir); err != nil {
			return removed, inUse, fmt.Errorf("vm image cache: remove %s: %w", dir, err)
		}
		removed = append(removed, dir)
	}
	return removed, inUse, nil
}

// imageDirName reports whether name is one of EnsureImage's directories
// (a key, or a key's .build), so nothing else in the cache is touched.
func imageDirName(name string) bool {
	key, _ := strings.CutSuffix(name, ".build")
	release, hash, ok := strings.Cut(key, "-")
	if !ok || release == "" || len(hash) != 16 {
		return false
	}
	for _, c := range hash {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// runningQEMU returns the command lines of the running QEMU processes.
func runningQEMU() [][]byte {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out [][]byte
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte("qemu-system")) {
			out = append(out, b)
		}
	}
	return out
}

// mentions reports whether any command line names a file under dir.
func mentions(cmdlines [][]byte, dir string) bool {
	needle := []byte(dir + "/")
	for _, c := range cmdlines {
		if bytes.Contains(c, needle) {
			return true
		}
	}
	return false
}
