package probe

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/integration"
)

// faketimeHelperEnv makes the test binary print its clock and exit: a Go
// program to run under libfaketime.
const faketimeHelperEnv = "FAULTLINE_FAKETIME_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(faketimeHelperEnv) == "1" {
		fmt.Println(time.Now().Unix())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestFaketimeSubstitute checks what docs/clock-faults.md says of
// libfaketime (Debian's faketime and libfaketime packages) on this host:
// `faketime -f OFFSET cmd` and LD_PRELOAD with FAKETIME shift the clock a
// dynamically linked program (date) reads, and a Go program's clock is not
// shifted, since Go reads the clock without libc. The offsets are a day,
// so a slow machine cannot blur them.
func TestFaketimeSubstitute(t *testing.T) {
	faketime := integration.NeedCommand(t, "faketime")
	libs, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	integration.Need(t, len(libs) > 0, "libfaketime.so.1 under /usr/lib/*/faketime (Debian's libfaketime)")
	date := integration.NeedCommand(t, "date")
	const day = 86400
	tests := []struct {
		name string
		cmd  *exec.Cmd
		want int64 // the shift, in seconds
	}{
		{"faketime -f +1d date", exec.Command(faketime, "-f", "+1d", date, "+%s"), day},
		{"LD_PRELOAD with FAKETIME=-1d date", withEnv(exec.Command(date, "+%s"), "LD_PRELOAD="+libs[0], "FAKETIME=-1d"), -day},
		{"a Go binary under faketime -f +1d", withEnv(exec.Command(faketime, "-f", "+1d", os.Args[0]), faketimeHelperEnv+"=1"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now().Unix()
			out, err := tt.cmd.CombinedOutput()
			after := time.Now().Unix()
			if err != nil {
				t.Fatalf("%v: %v\n%s", tt.cmd.Args, err, out)
			}
			got, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
			if err != nil {
				t.Fatalf("%v printed %q", tt.cmd.Args, out)
			}
			// The program read its clock between before and after, shifted.
			if got < before+tt.want-60 || got > after+tt.want+60 {
				t.Errorf("%v read %d (%+ds from the real clock), want a shift of %ds", tt.cmd.Args, got, got-before, tt.want)
			}
		})
	}
}

func withEnv(c *exec.Cmd, env ...string) *exec.Cmd {
	c.Env = append(os.Environ(), env...)
	return c
}

// TestFaketimeRecipeVerify runs the verify probe docs/clock-faults.md gives
// for a libfaketime fault (its SEEN script, taken from the page) against a
// daemon under libfaketime reading its offset from a file: it reports the
// offset the daemon sees (0, then 30 once the file says +30), and for a
// daemon started without the library, that it has none, so a fault whose
// file nothing reads is never proven (issue 27 item 7).
func TestFaketimeRecipeVerify(t *testing.T) {
	integration.NeedCommand(t, "faketime")
	libs, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	integration.Need(t, len(libs) > 0, "libfaketime.so.1 under /usr/lib/*/faketime (Debian's libfaketime)")
	page, err := os.ReadFile(filepath.Join("..", "docs", "clock-faults.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(page), `SEEN = """`)
	body, _, ok2 := strings.Cut(rest, `"""`)
	if !ok || !ok2 {
		t.Fatal(`docs/clock-faults.md has no SEEN = """...""" probe`)
	}
	script := strings.ReplaceAll(body, `\\`, `\`) // the Starlark string's escapes
	dir := t.TempDir()
	rc := filepath.Join(dir, "faketime.rc")
	if err := os.WriteFile(rc, []byte("+0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	daemon := func(name string, env ...string) string {
		cmd := withEnv(exec.Command("sleep", "300"), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		pidfile := filepath.Join(dir, name+".pid")
		if err := os.WriteFile(pidfile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
			t.Fatal(err)
		}
		return pidfile
	}
	seen := func(pidfile string) string {
		out, err := exec.Command("sh", "-c", script, "seen", pidfile).CombinedOutput()
		if err != nil {
			t.Fatalf("the probe failed: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	faked := daemon("faked", "LD_PRELOAD="+libs[0], "FAKETIME_TIMESTAMP_FILE="+rc, "FAKETIME_NO_CACHE=1")
	plain := daemon("plain")
	// The library maps once the daemon has started; the probe reads /proc.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(seen(faked), "no libfaketime") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := seen(faked); got != "0" {
		t.Errorf("with the file at +0 the probe read %q, want 0", got)
	}
	if err := os.WriteFile(rc, []byte("+30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := seen(faked); got != "30" && got != "29" && got != "31" {
		t.Errorf("with the file at +30 the probe read %q, want 30", got)
	}
	if got := seen(plain); !strings.Contains(got, "has no libfaketime mapped") {
		t.Errorf("a daemon without libfaketime: the probe read %q, want that it has none", got)
	}
}
