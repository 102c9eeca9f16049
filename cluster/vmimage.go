package cluster

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed" // the image recipe
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// DefaultImageCache is where VM images are built and kept, one directory
// per cache key.
const DefaultImageCache = "/var/cache/faultline/vm"

// vmRelease is the Debian release of VM images: the one faultline's own
// machines run, so the host's apt lists describe its kernel package.
const vmRelease = "bookworm"

// imageRecipe builds an image (see vmimage.sh); its text is part of the
// cache key, so a changed recipe never reuses an old image.
//
//go:embed vmimage.sh
var imageRecipe []byte

// imagePackages are always in the image: what sshd, the netns cluster's
// faults (ip, iptables, tc, kill, ps) and the clock faults (date) need.
var imagePackages = []string{"openssh-server", "iproute2", "iptables", "iputils-ping", "kmod", "procps", "xz-utils"}

// Image is a built VM image in the cache.
type Image struct {
	Dir           string        // cache directory of this key
	Key           string        // hash of release, kernel package, packages and recipe
	Kernel        string        // uncompressed vmlinux, for PVH boot
	Initrd        string        // busybox initramfs loading virtio and ext4
	Base          string        // raw ext4 root filesystem, read-only backing file of every overlay
	KernelRelease string        // uname -r inside the guests
	KernelPackage string        // the versioned Debian package it came from
	KernelVersion string        // that package's version
	Packages      []string      // extra packages baked in
	Built         bool          // this call built it (false: reused from the cache)
	BuildTime     time.Duration // how long the build took, when Built
}

// ImageConfig says which image EnsureImage builds or finds.
type ImageConfig struct {
	Packages []string  // extra Debian packages
	CacheDir string    // default DefaultImageCache
	Rebuild  bool      // build even if the cache holds the image
	Log      io.Writer // build progress (nil: discarded)
}

// manifest is manifest.json in an image directory: written last, so an
// image directory without it is incomplete.
type manifest struct {
	Key           string    `json:"key"`
	Release       string    `json:"release"`
	KernelRelease string    `json:"kernel_release"`
	KernelPackage string    `json:"kernel_package"`
	KernelVersion string    `json:"kernel_version"`
	Packages      []string  `json:"packages,omitempty"`
	BuiltAt       time.Time `json:"built_at"`
	BuildSeconds  float64   `json:"build_seconds"`
}

// toolsImage are the host tools the recipe runs.
var toolsImage = []tool{
	{"debootstrap", "debootstrap", "/usr/sbin/debootstrap"},
	{"apt-get", "apt", "/usr/bin/apt-get"},
	{"apt-cache", "apt", "/usr/bin/apt-cache"},
	{"dpkg-deb", "dpkg", "/usr/bin/dpkg-deb"},
	{"depmod", "kmod", "/usr/sbin/depmod"},
	{"modprobe", "kmod", "/usr/sbin/modprobe"},
	{"mkfs.ext4", "e2fsprogs", "/usr/sbin/mkfs.ext4"},
	{"cpio", "cpio", "/usr/bin/cpio"},
	{"busybox", "busybox-static", "/usr/bin/busybox"},
	{"xz", "xz-utils", "/usr/bin/xz"},
	{"zstd", "zstd", "/usr/bin/zstd"},
	{"chroot", "coreutils", "/usr/sbin/chroot"},
}

// EnsureImage returns the cached image for cfg's packages and the kernel
// Debian ships now, building it first when the cache lacks it (or
// cfg.Rebuild). Builds serialise on a lock of the cache directory.
func EnsureImage(ctx context.Context, cfg ImageConfig) (*Image, error) {
	if err := checkRoot(geteuid()); err != nil {
		return nil, err
	}
	pkgs := normalPackages(cfg.Packages)
	if err := checkPackages(pkgs); err != nil {
		return nil, err
	}
	if cfg.CacheDir == "" {
		cfg.CacheDir = DefaultImageCache
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if _, err := toolPaths(toolsImage, exec.LookPath); err != nil {
		return nil, err
	}
	kpkg, kver, err := kernelPackage(ctx)
	if err != nil {
		return nil, err
	}
	key := imageKey(vmRelease, kpkg, kver, pkgs, imageRecipe)
	dir := filepath.Join(cfg.CacheDir, key)
	if err := os.MkdirAll(cfg.CacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("vm image cache: %w", err)
	}
	if !cfg.Rebuild {
		if img, err := loadImage(dir); err == nil {
			return img, nil
		}
	}
	unlock, err := lockDir(ctx, cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if !cfg.Rebuild { // another process may have built it while we waited
		if img, err := loadImage(dir); err == nil {
			return img, nil
		}
	}
	mirror, err := aptMirror()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	work := dir + ".build"
	if err := removeBuildDir(work); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, fmt.Errorf("vm image: %w", err)
	}
	fmt.Fprintf(cfg.Log, "building VM image %s (Debian %s, %s %s, packages %s) in %s\n",
		key, vmRelease, kpkg, kver, strings.Join(append(slices.Clone(imagePackages), pkgs...), ","), work)
	if err := runRecipe(ctx, work, mirror, kpkg, pkgs, cfg.Log); err != nil {
		_ = removeBuildDir(work)
		return nil, err
	}
	krel, err := os.ReadFile(filepath.Join(work, "kernel-release"))
	if err != nil {
		return nil, fmt.Errorf("vm image: %w", err)
	}
	m := manifest{Key: key, Release: vmRelease, KernelRelease: strings.TrimSpace(string(krel)),
		KernelPackage: kpkg, KernelVersion: kver, Packages: pkgs, BuiltAt: time.Now().UTC(),
		BuildSeconds: time.Since(start).Seconds()}
	b, _ := json.MarshalIndent(m, "", "  ") // plain fields cannot fail
	if err := writeFile(filepath.Join(work, "manifest.json"), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("vm image: replace %s: %w", dir, err)
	}
	if err := os.Rename(work, dir); err != nil {
		return nil, fmt.Errorf("vm image: %w", err)
	}
	img, err := loadImage(dir)
	if err != nil {
		return nil, err
	}
	img.Built, img.BuildTime = true, time.Since(start)
	fmt.Fprintf(cfg.Log, "VM image %s built in %.1fs\n", key, img.BuildTime.Seconds())
	return img, nil
}

// runRecipe runs vmimage.sh in work, its output going to log.
func runRecipe(ctx context.Context, work, mirror, kpkg string, pkgs []string, log io.Writer) error {
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", string(imageRecipe), "vmimage.sh")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "WORK="+work, "RELEASE="+vmRelease, "MIRROR="+mirror,
		"KPKG="+kpkg, "PACKAGES="+strings.Join(pkgs, ","), "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C")
	var tail bytes.Buffer
	cmd.Stdout = io.MultiWriter(log, &tail)
	cmd.Stderr = io.MultiWriter(log, &tail)
	if err := cmd.Run(); err != nil {
		out := tail.Bytes()
		if len(out) > 3000 {
			out = out[len(out)-3000:]
		}
		return fmt.Errorf("vm image recipe failed in %s: %w: %s", work, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// loadImage reads a complete image directory.
func loadImage(dir string) (*Image, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("vm image %s: %w", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("vm image %s: manifest: %w", dir, err)
	}
	img := &Image{Dir: dir, Key: m.Key, Kernel: filepath.Join(dir, "vmlinux"), Initrd: filepath.Join(dir, "initrd.img"),
		Base: filepath.Join(dir, "base.img"), KernelRelease: m.KernelRelease, KernelPackage: m.KernelPackage,
		KernelVersion: m.KernelVersion, Packages: m.Packages}
	for _, p := range []string{img.Kernel, img.Initrd, img.Base} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("vm image %s incomplete: %w", dir, err)
		}
	}
	return img, nil
}

// removeBuildDir deletes a build directory, first unmounting whatever the
// recipe's chroot left mounted below it: a recursive delete must never walk
// into a mounted /proc, /sys or /dev.
func removeBuildDir(dir string) error {
	for range 3 {
		mounts, err := mountsUnder(dir)
		if err != nil {
			return err
		}
		if len(mounts) == 0 {
			return os.RemoveAll(dir)
		}
		for _, m := range mounts {
			_ = exec.Command("umount", "-l", m).Run()
		}
	}
	return fmt.Errorf("vm image: %s still has mounts below it; not removing it", dir)
}

// mountsUnder lists mount points at or below dir, deepest first.
func mountsUnder(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return nil, fmt.Errorf("read mounts: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 {
			mp := strings.ReplaceAll(fields[1], `\040`, " ")
			if mp == dir || strings.HasPrefix(mp, dir+"/") {
				out = append(out, mp)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out, sc.Err()
}

// imageKey hashes everything an image is made of.
func imageKey(release, kpkg, kver string, pkgs []string, recipe []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "release %s\nkernel %s %s\npackages %s\n", release, kpkg, kver, strings.Join(pkgs, ","))
	h.Write(recipe)
	return release + "-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// kernelPackage asks apt which versioned kernel package linux-image-amd64
// depends on now (its name changes with every kernel ABI bump, so it is
// never hard-coded) and that package's version.
func kernelPackage(ctx context.Context) (string, string, error) {
	out, err := run(ctx, nil, "apt-cache", "show", "--no-all-versions", "linux-image-amd64")
	if err != nil {
		return "", "", fmt.Errorf("find the Debian kernel (run apt-get update?): %w", err)
	}
	return parseKernelDepends(out)
}

var kernelDepRE = regexp.MustCompile(`(linux-image-[0-9][A-Za-z0-9.+-]*-amd64) \(= ([^)]+)\)`)

// parseKernelDepends reads the metapackage's Depends line.
func parseKernelDepends(show []byte) (string, string, error) {
	for line := range strings.SplitSeq(string(show), "\n") {
		if dep, ok := strings.CutPrefix(line, "Depends:"); ok {
			if m := kernelDepRE.FindStringSubmatch(dep); m != nil {
				return m[1], m[2], nil
			}
			return "", "", fmt.Errorf("linux-image-amd64 depends on no versioned kernel package: %q", strings.TrimSpace(dep))
		}
	}
	return "", "", errors.New("apt-cache show linux-image-amd64: no Depends line (run apt-get update?)")
}

// aptMirror is the Debian mirror the host's apt uses for the release, from
// deb822 .sources files or the one-line sources.list format.
func aptMirror() (string, error) {
	var texts []string
	if b, err := os.ReadFile("/etc/apt/sources.list"); err == nil {
		texts = append(texts, string(b))
	}
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources")
	lists, _ := filepath.Glob("/etc/apt/sources.list.d/*.list")
	for _, f := range append(files, lists...) {
		if b, err := os.ReadFile(f); err == nil {
			texts = append(texts, string(b))
		}
	}
	for _, t := range texts {
		if m := mirrorIn(t, vmRelease); m != "" {
			return m, nil
		}
	}
	return "", fmt.Errorf("no apt source for Debian %s in /etc/apt/sources.list{,.d}: debootstrap needs a mirror", vmRelease)
}

// mirrorIn finds the URI serving release's main suite in one sources file,
// either "deb URI suite components" lines or deb822 stanzas.
func mirrorIn(text, release string) string {
	for line := range strings.SplitSeq(text, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "deb" {
			i := 1
			if strings.HasPrefix(f[1], "[") { // options: deb [signed-by=...] URI suite
				for i < len(f) && !strings.HasSuffix(f[i], "]") {
					i++
				}
				i++
			}
			if i+1 < len(f) && f[i+1] == release {
				return f[i]
			}
		}
	}
	for stanza := range strings.SplitSeq(text, "\n\n") {
		var uris, suites []string
		enabled := true
		for line := range strings.SplitSeq(stanza, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			switch strings.TrimSpace(k) {
			case "URIs":
				uris = strings.Fields(v)
			case "Suites":
				suites = strings.Fields(v)
			case "Enabled":
				enabled = strings.TrimSpace(v) != "no"
			}
		}
		if enabled && len(uris) > 0 && slices.Contains(suites, release) {
			return uris[0]
		}
	}
	return ""
}

var packageRE = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`)

// normalPackages splits comma lists, trims, sorts and de-duplicates, so the
// same set always gives the same image key and record.
func normalPackages(in []string) []string {
	var out []string
	for _, p := range in {
		for q := range strings.SplitSeq(p, ",") {
			if q = strings.TrimSpace(q); q != "" {
				out = append(out, q)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkPackages refuses names that are not Debian package names (they go
// into debootstrap's command line and the record).
func checkPackages(pkgs []string) error {
	for _, p := range pkgs {
		if !packageRE.MatchString(p) {
			return fmt.Errorf("package %q: not a Debian package name", p)
		}
	}
	return nil
}
