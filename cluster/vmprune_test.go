package cluster

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPruneImages: every image directory but the kept one goes, half-done
// builds too; what is not an image directory stays.
func TestPruneImages(t *testing.T) {
	cache := t.TempDir()
	dirs := []string{"bookworm-c7f3eece43e08a82", "bookworm-0123456789abcdef", "bookworm-0123456789abcdef.build", "trixie-fedcba9876543210", "notes", "bookworm-short"}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(cache, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removed, inUse, err := PruneImages(context.Background(), cache, "bookworm-c7f3eece43e08a82")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range removed {
		got = append(got, filepath.Base(r))
	}
	want := []string{"bookworm-0123456789abcdef", "bookworm-0123456789abcdef.build", "trixie-fedcba9876543210"}
	if !slices.Equal(got, want) || len(inUse) != 0 {
		t.Errorf("removed %v (in use %v), want %v", got, inUse, want)
	}
	left, _ := os.ReadDir(cache)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	if want := []string{"bookworm-c7f3eece43e08a82", "bookworm-short", "notes"}; !slices.Equal(names, want) {
		t.Errorf("left %v, want %v", names, want)
	}
	if removed, _, err := PruneImages(context.Background(), filepath.Join(cache, "none"), ""); err != nil || removed != nil {
		t.Errorf("a missing cache: removed %v, %v", removed, err)
	}
}

func TestMentions(t *testing.T) {
	lines := [][]byte{[]byte("qemu-system-x86_64\x00-kernel\x00/var/cache/faultline/vm/bookworm-c7f3eece43e08a82/vmlinux\x00")}
	if !mentions(lines, "/var/cache/faultline/vm/bookworm-c7f3eece43e08a82") {
		t.Errorf("the running VM's image is not seen in use")
	}
	if mentions(lines, "/var/cache/faultline/vm/bookworm-c7f3eece43e08a8") {
		t.Errorf("a prefix of the image's directory counts as in use")
	}
}
