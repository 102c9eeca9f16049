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
