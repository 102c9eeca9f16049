package cluster

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// inNetns runs fn on an OS thread moved into the named network namespace:
// sockets fn opens and processes it starts belong to the node, with no `ip
// netns exec` process in between.
func inNetns(ns string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread leaves the host's namespace, so the
		// runtime must discard it when this goroutine ends, not reuse it.
		runtime.LockOSThread()
		errc <- func() error {
			f, err := os.Open(filepath.Join(netnsDir, ns))
			if err != nil {
				return fmt.Errorf("enter namespace: %w", err)
			}
			defer f.Close()
			if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
				return fmt.Errorf("enter namespace %s: %w", ns, err)
			}
			return fn()
		}()
	}()
	return <-errc
}

// configureLinks gives eth0 the node's address and brings eth0 and lo up.
// It must run inside the node's namespace (inNetns). The classic interface
// ioctls do in microseconds what an `ip` process per node did in tens of
// milliseconds on a loaded host.
func configureLinks(p netip.Prefix) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("configure eth0: %w", err)
	}
	defer unix.Close(fd)
	mask := netip.MustParsePrefix("255.255.255.255/32").Addr().As4()
	bits := p.Bits()
	for i := range mask {
		n := min(max(bits-8*i, 0), 8)
		mask[i] = byte(0xff << (8 - n))
	}
	addr := p.Addr().As4()
	for _, set := range []struct {
		req uint
		val []byte
	}{{unix.SIOCSIFADDR, addr[:]}, {unix.SIOCSIFNETMASK, mask[:]}} {
		ifr, err := unix.NewIfreq("eth0")
		if err != nil {
			return fmt.Errorf("configure eth0: %w", err)
		}
		if err := ifr.SetInet4Addr(set.val); err != nil {
			return fmt.Errorf("configure eth0: %w", err)
		}
		if err := unix.IoctlIfreq(fd, set.req, ifr); err != nil {
			return fmt.Errorf("configure eth0 address %s: %w", p, err)
		}
	}
	for _, name := range []string{"lo", "eth0"} {
		ifr, err := unix.NewIfreq(name)
		if err != nil {
			return fmt.Errorf("bring up %s: %w", name, err)
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
			return fmt.Errorf("bring up %s: %w", name, err)
		}
		ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
			return fmt.Errorf("bring up %s: %w", name, err)
		}
	}
	return nil
}
