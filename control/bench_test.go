package control

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/integration"
)

// BenchmarkExecTrue compares one round trip of `true` on a warm connection
// with a fresh OpenSSH client process per call, against the same sshd in the
// same run. Each iteration does one of each, alternating, and reports both
// times and their ratio.
func BenchmarkExecTrue(b *testing.B) {
	s := startSSHD(b, sshdOptions{})
	sshBin := integration.NeedCommand(b, "ssh")
	r := dialTest(b, s, s.config())
	ctx := context.Background()
	cmd := Cmd{Argv: []string{"true"}}
	if _, err := r.Run(ctx, cmd); err != nil {
		b.Fatal(err)
	}
	openssh := func() error {
		return exec.Command(sshBin, "-F", "/dev/null", "-i", s.clientKey,
			"-o", "UserKnownHostsFile="+s.knownHosts, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
			"-p", strconv.Itoa(s.node.Port), "root@127.0.0.1", "true").Run()
	}
	if err := openssh(); err != nil {
		b.Fatalf("ssh: %v", err)
	}
	var goTime, sshTime time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := r.Run(ctx, cmd); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := openssh(); err != nil {
			b.Fatal(err)
		}
		goTime += t1.Sub(t0)
		sshTime += time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(goTime.Nanoseconds())/n, "go-warm-ns/op")
	b.ReportMetric(float64(sshTime.Nanoseconds())/n, "openssh-ns/op")
	b.ReportMetric(float64(sshTime)/float64(goTime), "openssh/go")
}

// BenchmarkExecTrueParallel measures throughput of `true` from many
// goroutines on one warm connection (8 sessions at a time).
func BenchmarkExecTrueParallel(b *testing.B) {
	s := startSSHD(b, sshdOptions{})
	r := dialTest(b, s, s.config())
	cmd := Cmd{Argv: []string{"true"}}
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := r.Run(context.Background(), cmd); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkRender is the per-command cost of building a command line.
func BenchmarkRender(b *testing.B) {
	c := Cmd{Argv: []string{"etcdctl", "--endpoints", "http://10.77.0.1:2379", "put", "k 1", "it's"},
		Env: map[string]string{"ETCDCTL_API": "3"}, Dir: "/opt/etcd", Timeout: 5 * time.Second}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := render(c, sudoSkip); err != nil {
			b.Fatal(err)
		}
	}
}
