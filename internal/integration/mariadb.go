package integration

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver, to wait for readiness

	"github.com/faultline/faultline/internal/testdaemon"
)

// StartMariaDB runs MariaDB with a "test" database and returns a
// go-sql-driver DSN for root over TCP.
func StartMariaDB(t testing.TB) string {
	t.Helper()
	NeedCommand(t, "mariadb-install-db")
	Need(t, fileExists("/usr/sbin/mariadbd"), "the MariaDB server (/usr/sbin/mariadbd; apt-get install mariadb-server)")
	dir := mariaDBDir(t)
	data := filepath.Join(dir, "data")
	sysUser := []string{}
	if os.Geteuid() == 0 {
		sysUser = []string{"--user=mysql"}
	}
	install := append([]string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"}, sysUser...)
	if out, err := exec.Command("mariadb-install-db", install...).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	port := testdaemon.FreePort(t)
	args := append([]string{"--no-defaults", "--datadir=" + data, "--socket=" + filepath.Join(dir, "sock"),
		"--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1", "--skip-log-bin", "--skip-name-resolve",
		"--innodb-flush-log-at-trx-commit=0", "--max-connections=100",
		"--log-error=" + filepath.Join(dir, "error.log"), "--pid-file=" + filepath.Join(dir, "pid")}, sysUser...)
	cmd := exec.Command("/usr/sbin/mariadbd", args...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("mariadbd: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	dsn := fmt.Sprintf("root@tcp(127.0.0.1:%d)/", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		db, err := sql.Open("mysql", dsn)
		if err == nil {
			_, err = db.Exec("CREATE DATABASE IF NOT EXISTS test")
			db.Close()
		}
		if err == nil {
			break
		}
		select {
		case werr := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("mariadbd exited: %v\n%s", werr, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("MariaDB not ready after 60s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return dsn + "test"
}

// mariaDBDir makes the server's temporary directory, removed when t ends,
// owned by the mysql system user when running as root.
func mariaDBDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "faultline-mariadb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		chownTo(t, dir, "mysql")
	}
	return dir
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
