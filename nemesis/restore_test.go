package nemesis

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/integration"
)

// runInNamespace runs setup, then script, then after, in a new mount
// namespace with its own /run, /opt and /var/tmp, and returns script's
// output and after's.
func runInNamespace(t *testing.T, setup, script, after string) (string, string) {
	t.Helper()
	integration.NeedRoot(t)
	integration.NeedCommand(t, "unshare")
	const wrapper = `mount -t tmpfs none /run && mount -t tmpfs none /opt && mount -t tmpfs none /var/tmp || exit 90
sh -ec "$1" || exit 91
echo '--- script'
sh -c "$2" faultline-nemesis || exit 92
echo '--- after'
sh -c "$3" 2>&1
`
	out, err := exec.Command("unshare", "--mount", "sh", "-c", wrapper, "sh", setup, script, after).CombinedOutput()
	if err != nil {
		t.Fatalf("in a namespace: %v\n%s", err, out)
	}
	_, rest, _ := strings.Cut(string(out), "--- script\n")
	got, afterOut, _ := strings.Cut(rest, "--- after\n")
	return strings.TrimSpace(got), strings.TrimSpace(afterOut)
}

// The file faults' copies are put back byte for byte, latest first, and
// only from faultline's own kept directories: a record naming anything
// else (a forged line, a path outside KeptDir, one climbing out of it) is
// dropped without touching what it names.
func TestRestoreKept(t *testing.T) {
	damage := func(mode, f, a, b string) string {
		return "sh -c " + shq(corruptScript) + " faultline-nemesis " + mode + " " + f + " " + a + " " + b + " >/dev/null\n"
	}
	setup := stateLib + `printf 'abcdefghijklmnopqrstuvwxyz\n' >/opt/own
cp /opt/own /opt/orig
mkdir -p /opt/victim && printf /opt/own >/opt/victim/path && echo "truncate 0 27" >/opt/victim/how && sha256sum </opt/own | cut -d' ' -f1 >/opt/victim/after && : >/opt/victim/bytes
` + damage("truncate", "/opt/own", "5", "0") + damage("bitflip", "/opt/own", "3", "1") + damage("truncate", "/opt/own", "100", "0") + `
note kept /opt/victim
note kept "` + KeptDir + `x/../../../opt/victim"
`
	out, after := runInNamespace(t, setup, restoreScript,
		`cmp /opt/own /opt/orig && echo same; ls /opt/victim | tr '\n' ' '; echo; ls /var/tmp | wc -l; cat `+StateFile+` 2>&1; true`)
	if want := "restored /opt/own\nrestored /opt/own\nrestored /opt/own"; out != want {
		t.Errorf("restore said:\n%s\nwant:\n%s", out, want)
	}
	lines := strings.Split(after, "\n")
	if len(lines) != 4 || lines[0] != "same" || lines[1] != "after bytes how path " || lines[2] != "0" || !strings.Contains(lines[3], "No such file") {
		t.Errorf("after restore:\n%s\nwant the file as it was, the foreign directory untouched, no kept directory or record left", after)
	}
}

// shq quotes s for sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fill_disk refuses a path that exists and that the state file does not
// record as its fill file, and free_disk then keeps it; its own fill file
// it fills (again) and frees.
func TestFillRefusesNodeFile(t *testing.T) {
	run := func(script string, args ...string) string {
		s := "sh -c " + shq(script) + " faultline-nemesis"
		for _, a := range args {
			s += " " + shq(a)
		}
		return s + " 2>&1; echo \"exit $?\"\n"
	}
	script := run(fillScript, "/opt/own.conf", "1M") + run(freeScript, "/opt/own.conf") +
		run(fillScript, "/opt/fill", "1M") + run(fillScript, "/opt/fill", "2M") + run(freeScript, "/opt/fill")
	out, after := runInNamespace(t, `printf 'role = primary\n' >/opt/own.conf`, script, `cat /opt/own.conf; ls /opt`)
	for _, want := range []string{
		"/opt/own.conf exists and faultline did not create it: fill_disk fills a file of its own and never one of the node's (name a path that does not exist)\nexit 3",
		"kept\nexit 0",
		"size 1048576\n", "size 2097152\n",
		"gone\nexit 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("fill and free said:\n%s\nwant %q", out, want)
		}
	}
	if after != "role = primary\nown.conf" {
		t.Errorf("after: %q, want the node's file as it was and no fill file", after)
	}
}
