package cluster

import (
	"context"
	"errors"
	"os/exec"
	"testing"
)

func TestNotRoot(t *testing.T) {
	if err := checkRoot(0); err != nil {
		t.Errorf("euid 0: %v", err)
	}
	const want = "faultline cluster needs root (it creates network namespaces, a bridge and per-node sshd); run it with sudo"
	if err := checkRoot(1000); err == nil || err.Error() != want {
		t.Errorf("euid 1000: %v\nwant %s", err, want)
	}
	saved := geteuid
	geteuid = func() int { return 1000 }
	t.Cleanup(func() { geteuid = saved })
	ctx := context.Background()
	cfg := Config{StateDir: "/nonexistent/faultline-test", Prefix: "flq"}
	_, errUp := Up(ctx, cfg)
	_, errStatus := Status(ctx, cfg)
	for name, err := range map[string]error{"up": errUp, "down": Down(ctx, cfg), "status": errStatus} {
		if !errors.Is(err, ErrNotRoot) {
			t.Errorf("%s as euid 1000: %v, want ErrNotRoot", name, err)
		}
	}
}

func TestToolPaths(t *testing.T) {
	have := func(names ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			for _, n := range names {
				if n == name {
					return "/found/" + name, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	tests := []struct {
		name   string
		look   func(string) (string, error)
		want   string // error text; "" means all found
		sshdAt string
	}{
		{"all on PATH", have("ip", "unshare", "sshd"), "", "/found/sshd"},
		{"sshd only at its absolute path", have("ip", "unshare", "/usr/sbin/sshd"), "", "/found//usr/sbin/sshd"},
		{"no openssh-server", have("ip", "unshare"),
			"faultline cluster needs sshd (not found); install with: apt-get install openssh-server", ""},
		{"nothing", have(),
			"faultline cluster needs ip, unshare, sshd (not found); install with: apt-get install iproute2 util-linux openssh-server", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths, err := toolPaths(toolsUp, tt.look)
			if tt.want == "" {
				if err != nil || paths["sshd"] != tt.sshdAt {
					t.Errorf("paths %v err %v, want sshd at %s", paths, err, tt.sshdAt)
				}
				return
			}
			var miss *MissingToolsError
			if !errors.As(err, &miss) || err.Error() != tt.want {
				t.Errorf("err %v\nwant %s", err, tt.want)
			}
		})
	}
}
