// Package buildinfo says which faultline a binary is.
package buildinfo

import "runtime/debug"

// Version is version when the linker set one (-ldflags "-X
// main.version=..."); else the module version from the build info, with
// the VCS revision and whether the checkout was modified; else "(devel)".
func Version(version string) string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		rev, dirty := "", ""
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && len(s.Value) >= 12:
				rev = s.Value[:12]
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = ", modified" // built from a checkout with uncommitted changes
			}
		}
		if rev != "" {
			v += " (" + rev + dirty + ")"
		}
		if v != "" {
			return v
		}
	}
	return "(devel)"
}
