package integration

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/faultline/faultline/internal/testdaemon"
)

// StartPostgres runs a private PostgreSQL server from Debian's binaries in a
// temporary directory on 127.0.0.1 and a free port, stopped when t ends. It
// returns a DSN for the superuser. As root the server runs as the postgres
// user, which PostgreSQL insists on. Without the binaries the test stops as
// Need says. Tests of the client and of scripts that use it share it.
func StartPostgres(t testing.TB) string {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	Need(t, len(bins) > 0, "PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb; apt-get install postgresql)")
	sort.Strings(bins)
	bin := filepath.Dir(bins[len(bins)-1]) // the newest installed version

	dir, err := os.MkdirTemp("", "faultline-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var asUser []string
	if os.Geteuid() == 0 {
		NeedCommand(t, "runuser")
		chownTo(t, dir, "postgres")
		asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	run := func(name string, args ...string) {
		t.Helper()
		argv := append(append(asUser[:len(asUser):len(asUser)], filepath.Join(bin, name)), args...)
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}

	data := filepath.Join(dir, "data")
	run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	port := testdaemon.FreePort(t)
	opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c max_connections=60 -c deadlock_timeout=100ms", port, dir)
	run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-o", opts, "-w", "-t", "30", "start")
	t.Cleanup(func() {
		argv := append(append(asUser[:len(asUser):len(asUser)], filepath.Join(bin, "pg_ctl")), "-D", data, "-m", "immediate", "-w", "stop")
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Errorf("stop PostgreSQL: %v\n%s", err, out)
		}
	})
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
}

// chownTo gives dir to the system user sysUser, whom a database server
// started as root runs as.
func chownTo(t testing.TB, dir, sysUser string) {
	t.Helper()
	u, err := user.Lookup(sysUser)
	Need(t, err == nil, "a "+sysUser+" system user")
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
}
