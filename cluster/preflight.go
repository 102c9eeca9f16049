package cluster

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// ErrNotRoot is returned by Up, Down and Status when not run as root.
var ErrNotRoot = errors.New("faultline cluster needs root (it creates network namespaces, a bridge and per-node sshd); run it with sudo")

// tool is an executable the cluster runs and the Debian package shipping it.
type tool struct {
	name     string
	pkg      string
	fallback string // absolute path tried when name is not on PATH
}

// Tools by task: Down only needs iproute2 (Status needs nothing but /proc).
// Keys are generated in-process, so ssh-keygen is not among them.
var (
	toolsUp = []tool{
		{"ip", "iproute2", "/usr/sbin/ip"},
		{"unshare", "util-linux", "/usr/bin/unshare"},
		{"sshd", "openssh-server", "/usr/sbin/sshd"},
	}
	toolsDown = []tool{
		{"ip", "iproute2", "/usr/sbin/ip"},
	}
)

// MissingToolsError names the executables that were not found and the Debian
// packages that provide them.
type MissingToolsError struct {
	Tools    []string
	Packages []string
}

// Error names the tools and the apt-get line that installs them.
func (e *MissingToolsError) Error() string {
	return "faultline cluster needs " + strings.Join(e.Tools, ", ") +
		" (not found); install with: apt-get install " + strings.Join(e.Packages, " ")
}

// geteuid is swapped by tests to check the message a non-root user gets.
var geteuid = os.Geteuid

// checkRoot fails with ErrNotRoot unless euid is 0.
func checkRoot(euid int) error {
	if euid != 0 {
		return ErrNotRoot
	}
	return nil
}

// toolPaths resolves every tool with lookPath (falling back to its usual
// absolute path, since sudo may drop /usr/sbin from PATH) and reports all
// missing ones at once, so one apt-get fixes them.
func toolPaths(tools []tool, lookPath func(string) (string, error)) (map[string]string, error) {
	paths := make(map[string]string, len(tools))
	var miss MissingToolsError
	for _, t := range tools {
		p, err := lookPath(t.name)
		if err != nil {
			p, err = lookPath(t.fallback)
		}
		if err != nil {
			miss.Tools = append(miss.Tools, t.name)
			if !slices.Contains(miss.Packages, t.pkg) {
				miss.Packages = append(miss.Packages, t.pkg)
			}
			continue
		}
		paths[t.name] = p
	}
	if len(miss.Tools) > 0 {
		return nil, &miss
	}
	return paths, nil
}

// preflight is the common start of Up, Down and Status.
func preflight(tools []tool) (map[string]string, error) {
	if err := checkRoot(geteuid()); err != nil {
		return nil, err
	}
	return toolPaths(tools, exec.LookPath)
}
