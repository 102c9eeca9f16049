// Package nodeclock reads and moves a node's wall clock over its control
// connection, with the controller's clock as the reference: what a VM
// cluster needs right after boot (a guest's RTC has one-second resolution)
// and what clock faults need as landing evidence.
//
// An offset is measured from a round trip: the node's clock reading is
// compared with the midpoint of the controller's send and receive times, so
// the true offset lies within Bound (half the round trip) of the reported
// one; of several samples the one with the shortest round trip wins. The
// round trips are short when the node can connect back to the controller:
// one command runs a bash loop on the node that answers each line the
// controller sends on that TCP connection with $EPOCHREALTIME (builtins
// only, no process per sample), so a sample costs a network round trip, not
// an SSH session (which on an emulated node takes most of a second). When
// the node cannot connect back (a partition, a firewall), each sample is
// one `date` command instead, with the larger bound that implies.
//
// Moving a clock is done on the node relative to its own clock, read and
// set in one process, so neither the network's delay nor a process start
// enters it.
package nodeclock

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/control"
)

// Offset is a node's clock minus the controller's, as measured.
type Offset struct {
	Offset time.Duration // node clock - controller clock
	Bound  time.Duration // half the round trip: the true offset is within ±Bound
	At     time.Time     // controller time of the measurement's midpoint
	// Mono is the controller's monotonic clock at At (time since this
	// process's first reading), which no step of its wall clock moves.
	Mono time.Duration
}

// epoch is the origin of Offset.Mono.
var epoch = time.Now()

// String shows the offset with its bound, e.g. "+30.012s ±48ms".
func (o Offset) String() string {
	sign := "+"
	if o.Offset < 0 {
		sign = "-"
	}
	return fmt.Sprintf("%s%s ±%s", sign, abs(o.Offset).Round(100*time.Microsecond), o.Bound.Round(100*time.Microsecond))
}

// Moved is how far the node's clock moved against true elapsed time since
// the measurement since: the change in offset with any step of the
// controller's own wall clock between the two taken out. A host whose NTP
// steps its clock, or whose own VM was paused and then set right, shifts
// every offset at once without any node's clock having moved.
func (o Offset) Moved(since Offset) time.Duration {
	return o.Offset - since.Offset + o.ControllerStep(since)
}

// ControllerStep is how far the controller's own wall clock was set between
// the measurement since and o: wall time elapsed minus monotonic time.
func (o Offset) ControllerStep(since Offset) time.Duration {
	return o.At.Round(0).Sub(since.At.Round(0)) - (o.Mono - since.Mono)
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// readCmd prints the node's wall clock in nanoseconds since the epoch.
const readCmd = "date +%s%N"

// dialBackScript connects to the controller ($1 host, $2 port) and answers
// every line it reads with the node's wall clock, until the controller
// closes the connection. Only bash builtins run per sample.
const dialBackScript = `exec 3<>"/dev/tcp/$1/$2" || exit 3
while read -r _ <&3; do echo "$EPOCHREALTIME" >&3; done`

// Measure samples the node's offset and returns the sample with the
// shortest round trip: samples round trips over a connection from the node
// back to the controller, or, when that fails, samples `date` commands.
func Measure(ctx context.Context, r control.Remote, nodeHost string, samples int) (Offset, error) {
	samples = max(samples, 1)
	if o, err := measureDialBack(ctx, r, nodeHost, samples*4); err == nil {
		return o, nil
	}
	return measureByCommand(ctx, r, samples)
}

// measureDialBack listens on the controller's address towards nodeHost and
// has the node connect to it (see dialBackScript).
func measureDialBack(ctx context.Context, r control.Remote, nodeHost string, samples int) (Offset, error) {
	local, err := localAddrTowards(nodeHost)
	if err != nil {
		return Offset{}, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(local, "0"))
	if err != nil {
		return Offset{}, fmt.Errorf("listen for %s's clock: %w", r.Node(), err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ran := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, control.Cmd{Argv: []string{"bash", "-c", dialBackScript, "clock", local, port},
			Timeout: time.Minute, Label: "clock dial-back"})
		ran <- err
	}()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	var conn net.Conn
	select {
	case conn = <-accepted:
	case err := <-ran:
		return Offset{}, fmt.Errorf("clock dial-back from %s: %v", r.Node(), err)
	case <-time.After(20 * time.Second):
		return Offset{}, fmt.Errorf("clock dial-back from %s: no connection", r.Node())
	}
	var best Offset
	err = func() error {
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		rd := bufio.NewReader(conn)
		for k := 0; k < samples; k++ {
			t0 := time.Now()
			if _, err := conn.Write([]byte("t\n")); err != nil {
				return err
			}
			line, err := rd.ReadString('\n')
			t1 := time.Now()
			if err != nil {
				return err
			}
			node, err := parseEpochRealtime(line)
			if err != nil {
				return err
			}
			if o := sample(t0, t1, node); k == 0 || o.Bound < best.Bound {
				best = o
			}
		}
		return nil
	}()
	if err != nil {
		return Offset{}, fmt.Errorf("clock dial-back from %s: %w", r.Node(), err)
	}
	<-ran // the loop ends on EOF; its status does not matter
	return best, nil
}

// localAddrTowards is the controller's source address for packets to host
// (a UDP "connect" only asks the routing table; nothing is sent).
func localAddrTowards(host string) (string, error) {
	c, err := net.Dial("udp", net.JoinHostPort(host, "9"))
	if err != nil {
		return "", fmt.Errorf("route to %s: %w", host, err)
	}
	defer c.Close()
	a, ok := c.LocalAddr().(*net.UDPAddr)
	if !ok {
		return "", fmt.Errorf("route to %s: no local address", host)
	}
	return a.IP.String(), nil
}

// measureByCommand samples with one `date` command per sample.
func measureByCommand(ctx context.Context, r control.Remote, samples int) (Offset, error) {
	var best Offset
	for k := 0; k < samples; k++ {
		t0 := time.Now()
		res, err := r.Run(ctx, control.Cmd{Raw: readCmd, Timeout: 30 * time.Second, Label: "read clock"})
		t1 := time.Now()
		if err != nil {
			return Offset{}, fmt.Errorf("measure clock of %s: %w", r.Node(), err)
		}
		node, err := parseNanos(res.Stdout)
		if err != nil {
			return Offset{}, fmt.Errorf("measure clock of %s: %w", r.Node(), err)
		}
		if o := sample(t0, t1, node); k == 0 || o.Bound < best.Bound {
			best = o
		}
	}
	return best, nil
}

// parseEpochRealtime reads bash's $EPOCHREALTIME ("1764648000.123456"; the
// separator follows the locale).
func parseEpochRealtime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	sec, frac, ok := strings.Cut(strings.Replace(s, ",", ".", 1), ".")
	n, err1 := strconv.ParseInt(sec, 10, 64)
	us, err2 := strconv.ParseInt(frac, 10, 64)
	if !ok || err1 != nil || err2 != nil || len(frac) != 6 {
		return time.Time{}, fmt.Errorf("unexpected clock reading %q (want bash's $EPOCHREALTIME)", s)
	}
	return time.Unix(n, us*1000), nil
}

// sample turns one round trip (controller send t0, receive t1, node reading
// node) into an offset.
func sample(t0, t1, node time.Time) Offset {
	rtt := t1.Sub(t0)
	mid := t0.Add(rtt / 2)
	return Offset{Offset: node.Sub(mid), Bound: rtt / 2, At: mid, Mono: mid.Sub(epoch)}
}

// bootWallScript prints the node's wall clock and its time since boot
// (CLOCK_BOOTTIME, /proc/uptime), read a few microseconds apart.
const bootWallScript = `read -r up _ </proc/uptime && echo "$EPOCHREALTIME $up"`

// BootWall is the node's boot time by its own wall clock: wall clock minus
// time since boot, to /proc/uptime's 10 ms. Only setting the wall clock (a
// step, a slew) changes it; no controller is involved, so neither a step of
// the controller's clock nor a pause of the machine the node runs on does.
// Two readings that differ tell that someone moved the node's clock.
func BootWall(ctx context.Context, r control.Remote) (time.Time, error) {
	res, err := r.Run(ctx, control.Cmd{Argv: []string{"bash", "-c", bootWallScript}, Timeout: 30 * time.Second, Label: "read boot time"})
	if err != nil {
		return time.Time{}, fmt.Errorf("boot time of %s: %w", r.Node(), err)
	}
	t, err := parseBootWall(string(res.Stdout))
	if err != nil {
		return time.Time{}, fmt.Errorf("boot time of %s: %w", r.Node(), err)
	}
	return t, nil
}

// parseBootWall reads bootWallScript's output ("1764648000.123456 42.17").
func parseBootWall(s string) (time.Time, error) {
	wall, up, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return time.Time{}, fmt.Errorf("unexpected reading %q (want $EPOCHREALTIME and /proc/uptime)", s)
	}
	t, err := parseEpochRealtime(wall)
	if err != nil {
		return time.Time{}, err
	}
	secs, err := strconv.ParseFloat(up, 64)
	if err != nil || secs < 0 {
		return time.Time{}, fmt.Errorf("unexpected uptime %q", up)
	}
	return t.Add(-time.Duration(secs * float64(time.Second))), nil
}

// parseNanos reads `date +%s%N` output.
func parseNanos(out []byte) (time.Time, error) {
	s := strings.TrimSpace(string(out))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || len(s) < 10 {
		return time.Time{}, fmt.Errorf("unexpected clock reading %q (want `date +%%s%%N` nanoseconds)", s)
	}
	return time.Unix(0, n), nil
}

// shiftPerl moves the clock by $ARGV[0] microseconds: it reads the clock
// and sets the reading plus the delta in one process, with raw
// gettimeofday/settimeofday syscalls (numbers $ARGV[1], $ARGV[2]), so
// nothing but a few microseconds passes between the two. perl-base is
// Essential in Debian, and syscall is a core builtin (perl-base has no
// Time::HiRes); a timeval is two 64-bit longs on both architectures
// shiftScript knows. With $ARGV[3] "dry" it prints the time it would set.
const shiftPerl = `use integer;
my $tv = pack("qq", 0, 0);
syscall($ARGV[1], $tv, 0) == 0 or die "gettimeofday: $!\n";
my ($s, $u) = unpack("qq", $tv);
my $t = $s * 1000000 + $u + $ARGV[0];
$tv = pack("qq", $t / 1000000, $t % 1000000);
if (($ARGV[3] // "") eq "dry") { printf "%d.%06d\n", $t / 1000000, $t % 1000000; exit 0 }
syscall($ARGV[2], $tv, 0) == 0 or die "settimeofday: $!\n";`

// shiftScript picks the syscall numbers for the node's architecture and
// runs shiftPerl; $1 is the delta in microseconds, $2 optionally "dry".
const shiftScript = `case $(uname -m) in
x86_64) get=96 set=164 ;;
aarch64) get=169 set=170 ;;
*) echo "clock shift: unsupported architecture $(uname -m)" >&2; exit 2 ;;
esac
exec perl -e '` + shiftPerl + `' -- "$1" "$get" "$set" "$2"`

// ShiftScript is the sh script behind ShiftArgv: $1 is the delta in
// microseconds, $2 optionally "dry". Node-side loops (a strobing clock)
// run it with sh -c.
const ShiftScript = shiftScript

// ShiftArgv is the command that moves the node's clock by delta (to the
// microsecond: settimeofday's resolution).
func ShiftArgv(delta time.Duration) []string {
	return []string{"sh", "-c", shiftScript, "shift", strconv.FormatInt(delta.Microseconds(), 10)}
}

// NormalTick is the kernel's clock tick in microseconds per 1/USER_HZ
// second (USER_HZ is 100 on Linux): the rate at which the clock runs true.
const NormalTick = 10000

// tickScript sets (with $1 a tick in microseconds) or, with $1 "read",
// prints the kernel's tick through adjtimex(2), the rate the wall clock
// advances at: 10000 is true time, 10500 runs 5% fast (the kernel accepts
// 9000 to 11000). struct timex is 208 bytes with tick at offset 88 on the
// 64-bit architectures handled; modes 0x4000 is ADJ_TICK.
const tickScript = `case $(uname -m) in
x86_64) nr=159 ;;
aarch64) nr=171 ;;
*) echo "clock skew: unsupported architecture $(uname -m)" >&2; exit 2 ;;
esac
exec perl -e '
my $tx = "\0" x 208;
if ($ARGV[1] ne "read") { substr($tx, 0, 4) = pack("L", 0x4000); substr($tx, 88, 8) = pack("q", $ARGV[1]); }
syscall($ARGV[0], $tx) != -1 or die "adjtimex: $!\n";
print unpack("q", substr($tx, 88, 8)), "\n";' -- "$nr" "$1"`

// TickArgv sets the node's clock tick (see tickScript) and prints it.
func TickArgv(tick int) []string {
	return []string{"sh", "-c", tickScript, "tick", strconv.Itoa(tick)}
}

// ReadTickArgv prints the node's clock tick.
func ReadTickArgv() []string { return []string{"sh", "-c", tickScript, "tick", "read"} }

// RateTick is the tick that makes the clock run at rate times true time,
// and whether the kernel accepts it (rate 0.9 to 1.1).
func RateTick(rate float64) (int, bool) {
	t := int(rate*NormalTick + 0.5)
	return t, t >= 9000 && t <= 11000
}

// Shift moves the node's wall clock by delta (settimeofday through date -s).
func Shift(ctx context.Context, r control.Remote, delta time.Duration) error {
	if _, err := r.Run(ctx, control.Cmd{Argv: ShiftArgv(delta), Timeout: 30 * time.Second, Label: fmt.Sprintf("shift clock by %s", delta)}); err != nil {
		return fmt.Errorf("shift clock of %s by %s: %w", r.Node(), delta, err)
	}
	return nil
}

// Sync sets the node's clock to the controller's: measure, shift by minus
// the offset, and measure again, up to rounds times while the residual
// exceeds its bound plus tolerance. It returns the last measurement: the
// residual offset.
func Sync(ctx context.Context, r control.Remote, nodeHost string, tolerance time.Duration, rounds int) (Offset, error) {
	o, err := Measure(ctx, r, nodeHost, 3)
	if err != nil {
		return Offset{}, err
	}
	for k := 0; k < max(rounds, 1) && abs(o.Offset) > o.Bound+tolerance; k++ {
		if err := Shift(ctx, r, -o.Offset); err != nil {
			return Offset{}, err
		}
		if o, err = Measure(ctx, r, nodeHost, 3); err != nil {
			return Offset{}, err
		}
	}
	return o, nil
}
