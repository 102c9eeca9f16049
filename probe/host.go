package probe

// This file holds the probes that look at the host: version commands, euid,
// kernel modules and files. None of them changes anything.

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// result is the outcome of probing one capability.
type result struct {
	present                        Presence
	version, source, note, install string
}

// probeOne verifies a single capability; a name the catalogue does not know
// is looked up on PATH when it can be a command, else it stays Unknown.
func probeOne(ctx context.Context, env Env, timeout time.Duration, name string) result {
	c, known := catalogue[name]
	if !known {
		if name == "" {
			return result{present: Unknown, note: "no probe known for this requirement"}
		}
		c = capability{cmds: [][]string{{name, "--version"}}}
	}
	res := result{present: Yes}
	var src []string
	if len(c.cmds) > 0 {
		found := false
		for _, argv := range c.cmds {
			p, err := env.LookPath(argv[0])
			if err != nil {
				continue
			}
			found = true
			src = append(src, commandLine(argv))
			res.version = runVersion(ctx, env, timeout, p, argv[1:])
			break
		}
		if !found {
			res.present, res.note, res.install = No, c.cmds[0][0]+" not on PATH", c.install
			src = append(src, "which "+c.cmds[0][0])
		}
	}
	if c.root {
		src = append(src, "euid")
		if id := env.Euid(); id != 0 {
			res.present, res.note = No, joinNote(res.note, fmt.Sprintf("euid %d, needs root", id))
		}
	}
	if c.module != "" {
		p, where, note := kernelModule(env.FS, c.module, c.config)
		src = append(src, where)
		if rank(p) > rank(res.present) {
			res.present = p
		}
		res.note = joinNote(res.note, note)
	}
	if len(c.files) > 0 {
		src = append(src, "stat /"+c.files[0])
		if !anyExists(env.FS, c.files) {
			res.present, res.note = No, joinNote(res.note, "/"+c.files[0]+" absent")
		}
	}
	res.source = strings.Join(src, ", ")
	return res
}

var (
	versionRe = regexp.MustCompile(`\d+(\.\d+)+[\w.+~-]*`)
	backendRe = regexp.MustCompile(`\((nf_tables|legacy)\)`)
)

// runVersion runs a version command and extracts the version; the iptables
// backend (nf_tables or legacy) is kept because rules differ between them.
func runVersion(ctx context.Context, env Env, timeout time.Duration, path string, args []string) string {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, _ := env.Run(ctx, path, args...) // many tools exit non-zero for -V; the output still names the version
	line := firstLine(out)
	v := versionRe.FindString(line)
	if b := backendRe.FindString(line); b != "" {
		v += " " + b
	}
	return v
}

// kernelModule decides whether the kernel offers a module: loaded
// (/sys/module), built in or modular per /proc/config.gz, or shipped under
// /lib/modules/<release>. Without any of those sources the answer is Unknown.
func kernelModule(fsys fs.FS, module, config string) (Presence, string, string) {
	if _, err := fs.Stat(fsys, "sys/module/"+module); err == nil {
		return Yes, "/sys/module/" + module, ""
	}
	if cfg, err := readConfig(fsys); err == nil {
		for _, l := range strings.Split(cfg, "\n") {
			if l == config+"=y" || l == config+"=m" {
				return Yes, "/proc/config.gz", ""
			}
		}
		return No, "/proc/config.gz", config + " not set in the kernel config"
	}
	if rel, err := fs.ReadFile(fsys, "proc/sys/kernel/osrelease"); err == nil {
		dir := "lib/modules/" + strings.TrimSpace(string(rel))
		found := false
		_ = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), module+".ko") {
				found = true
				return fs.SkipAll
			}
			return nil
		})
		if found {
			return Yes, "/" + dir, ""
		}
	}
	return Unknown, "/sys/module, /proc/config.gz", "cannot tell whether the kernel has " + module
}

func readConfig(fsys fs.FS) (string, error) {
	f, err := fsys.Open("proc/config.gz")
	if err != nil {
		return "", fmt.Errorf("probe: kernel config: %w", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("probe: kernel config: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(z, 4<<20))
	if err != nil {
		return "", fmt.Errorf("probe: kernel config: %w", err)
	}
	return string(b), nil
}

// belowFloor compares dotted numeric versions; a floor it cannot read
// ("any", "Linux 5.10") never fails a row, the operator judges those.
func belowFloor(version, floor string) bool {
	f := strings.TrimSuffix(strings.TrimSpace(floor), "+")
	if f == "" || strings.IndexFunc(f, func(r rune) bool { return r != '.' && (r < '0' || r > '9') }) >= 0 {
		return false
	}
	have := versionRe.FindString(version)
	hv, fv := strings.Split(have, "."), strings.Split(f, ".")
	for i := range fv {
		want, _ := strconv.Atoi(fv[i])
		got := 0
		if i < len(hv) {
			got, _ = strconv.Atoi(strings.TrimRightFunc(hv[i], func(r rune) bool { return r < '0' || r > '9' }))
		}
		if got != want {
			return got < want
		}
	}
	return false
}

// fallbackCommand returns a requirement's name when the whole name can be a
// command, so an unknown "kafka" is still looked up on PATH; prose such as
// "a 10 GbE link" stays unprobeable rather than probing a guessed word.
func fallbackCommand(name string) string {
	f := strings.Fields(strings.ToLower(name))
	if len(f) != 1 {
		return ""
	}
	for _, r := range f[0] {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return ""
		}
	}
	return f[0]
}

func (e Env) withDefaults() Env {
	if e.LookPath == nil {
		e.LookPath = exec.LookPath
	}
	if e.Run == nil {
		e.Run = func(ctx context.Context, path string, args ...string) ([]byte, error) {
			return exec.CommandContext(ctx, path, args...).CombinedOutput()
		}
	}
	if e.Euid == nil {
		e.Euid = os.Geteuid
	}
	if e.FS == nil {
		e.FS = os.DirFS("/")
	}
	return e
}

func anyExists(fsys fs.FS, paths []string) bool {
	for _, p := range paths {
		if _, err := fs.Stat(fsys, p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// commandLine renders argv for the Source column, quoting arguments with
// spaces so the shown command can be pasted into a shell.
func commandLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = a
		if strings.ContainsAny(a, " \t'") {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}
