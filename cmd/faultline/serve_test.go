package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/testdaemon"
)

// TestServeOverHTTP starts the built faultline serve on a free loopback
// port over a copy of the recorded failing session, GETs the list and the
// session page over real HTTP, and stops it with SIGINT (exit 0).
func TestServeOverHTTP(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join("..", "..", "report", "testdata", "index", "demo-store", "20261202T035833Z")
	dst := filepath.Join(root, "demo-store", "20261202T035833Z")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", testdaemon.FreePort(t))
	cmd := exec.Command(clitest.Binary(t), "serve", root, "--addr", addr)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The URL is printed once the socket listens.
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no URL: %v (stderr: %s)", err, stderr.String())
	}
	url := "http://" + addr + "/"
	if !strings.Contains(line, url) {
		t.Fatalf("serve printed %q, want its URL %s", line, url)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	body := func(u string) string {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
		}
		return string(b)
	}
	list := body(url)
	if !strings.Contains(list, `<a href="/session/demo-store/20261202T035833Z/">`) || !strings.Contains(list, `<span class="verdict fail">FAIL</span>`) {
		t.Errorf("the list does not show the failing session:\n%s", list)
	}
	page := body(url + "session/demo-store/20261202T035833Z/")
	if !strings.Contains(page, `<section class="unit" id="unit-S1">`) || !strings.Contains(page, `<div class="plot"><svg`) {
		t.Errorf("the session page lacks its unit or plot")
	}
	if stderr.Len() > 0 {
		t.Errorf("a loopback address warned: %s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve stopped by SIGINT: %v, want exit 0", err)
	}
}

// TestServeRefusesBadInput: a malformed address is a usage error, a
// missing directory exit 3, and a non-loopback address is warned about.
func TestServeRefusesBadInput(t *testing.T) {
	if code, _, stderr := clitest.Run(t, "serve", t.TempDir(), "--addr", "127.0.0.1"); code != exitUsage || !strings.Contains(stderr, "want HOST:PORT") {
		t.Errorf("--addr without a port: exit %d, %s", code, stderr)
	}
	if code, _, stderr := clitest.Run(t, "serve", filepath.Join(t.TempDir(), "missing")); code != exitRejected || !strings.Contains(stderr, "missing") {
		t.Errorf("a missing DIR: exit %d, %s", code, stderr)
	}
	if code, _, stderr := clitest.Run(t, "serve", "a", "b"); code != exitUsage {
		t.Errorf("two DIRs: exit %d, %s", code, stderr)
	}
	// A non-loopback address is allowed with a warning. The port is held
	// on loopback, so the bind on 0.0.0.0 fails after the warning (exit 3)
	// and the test never listens on every interface.
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := fmt.Sprintf("0.0.0.0:%d", held.Addr().(*net.TCPAddr).Port)
	code, _, stderr := clitest.Run(t, "serve", t.TempDir(), "--addr", addr)
	if !strings.Contains(stderr, "warning: "+addr+" listens on every network interface") {
		t.Errorf("serve on 0.0.0.0 did not warn: %q", stderr)
	}
	if code != exitRejected || !strings.Contains(stderr, "listen on "+addr) {
		t.Errorf("a port in use: exit %d, %s", code, stderr)
	}
}

// TestServeHelp: serve's help has examples and its exit codes, as every
// command's (TestHelpTexts).
func TestServeHelp(t *testing.T) {
	c, _, err := newRootCmd().Find([]string{"serve"})
	if err != nil || c.Name() != "serve" {
		t.Fatalf("no serve command: %v", err)
	}
	if c.Example == "" || !strings.Contains(c.Long, "Exit codes: 0 ") || !strings.Contains(c.Long, "64 usage error") {
		t.Errorf("serve's help lacks examples or its exit codes:\n%s", c.Long)
	}
}
