package control

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"sync"
)

// BinDir is where InstallBinary puts binaries on a node; /opt is private
// per node on a netns cluster.
const BinDir = LocalDir + "/bin"

// SelfBinary is the path of the faultline binary this process runs as, for
// nodes that run parts of faultline (the demo store, the delay agent).
// FAULTLINE_BINARY overrides it: a test binary is not faultline.
func SelfBinary() (string, error) {
	if p := os.Getenv("FAULTLINE_BINARY"); p != "" {
		return p, nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locate the faultline binary: %w", err)
	}
	return p, nil
}

// InstallBinary puts the local binary on the node as BinDir/name-<sha12 of
// its content>, unless that file is already there (uploads are atomic, so
// the name vouches for the content), and returns its path on the node and
// whether it uploaded it. What it uploads is recorded in CreatedFile, for
// heal to remove (RemoveCreated); a file that was there already is not.
func InstallBinary(ctx context.Context, r Remote, local, name string) (string, bool, error) {
	sum, err := contentSum(local)
	if err != nil {
		return "", false, err
	}
	remote := path.Join(BinDir, name+"-"+sum[:12])
	if ok, err := Exists(ctx, r, remote); err != nil || ok {
		return remote, false, err
	}
	// The binary is recorded (CreatedFile) before it is uploaded, with the
	// directories made for it, so heal removes them even after a crash
	// mid-upload. An upload a crash cut off left its temporary here; this
	// upload removes it (one in flight elsewhere is younger than a minute).
	prep := CreatedLib + `make_dir "$1" && made file "$2" || exit 1
` + SweepIdleUploads
	if _, err := r.Run(ctx, Cmd{Argv: []string{"sh", "-c", prep, "faultline-install", BinDir, remote}, Label: "install: prepare " + BinDir}); err != nil {
		return "", false, err
	}
	if err := r.Upload(ctx, local, remote); err != nil {
		return "", false, err
	}
	return remote, true, nil
}

// UploadTempSuffix ends the name of every upload's temporary file, made
// beside its destination (.<name>.<random>.faultline-tmp) and renamed over
// it when complete; a controller killed mid-upload leaves it behind.
const UploadTempSuffix = ".faultline-tmp"

// SweepUploads is shell that removes from BinDir, faultline's own directory
// on a node, the temporaries of uploads that never completed, printing
// "removed upload temporary PATH" for each. Only regular files named as an
// upload's temporary are touched. Heal runs it, after a crash.
const SweepUploads = `for f in ` + BinDir + `/.*` + UploadTempSuffix + `; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  rm -f -- "$f" && echo "removed upload temporary $f"
done
`

// SweepIdleUploads is SweepUploads for a live run: a temporary written to
// in the last minute is left alone, as it may be an upload in flight (an
// upload writes without pause).
const SweepIdleUploads = `for f in ` + BinDir + `/.*` + UploadTempSuffix + `; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  [ -n "$(find "$f" -prune -mmin +1)" ] || continue
  rm -f -- "$f" && echo "removed upload temporary $f"
done
`

var (
	sumsMu sync.Mutex
	sums   = map[string]string{} // local path -> sha256, computed once
)

// contentSum is the hex sha256 of a local file, cached per path: binaries
// do not change under a running faultline.
func contentSum(p string) (string, error) {
	sumsMu.Lock()
	defer sumsMu.Unlock()
	if s, ok := sums[p]; ok {
		return s, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("checksum %s: %w", p, err)
	}
	sums[p] = hex.EncodeToString(h.Sum(nil))
	return sums[p], nil
}
