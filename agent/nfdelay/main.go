package nfdelay

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
)

// Main is the `faultline agent nfdelay` command: it parses args (without
// the command name), runs until SIGTERM or SIGINT, and returns nil then.
//
//	-q N          NFQUEUE number (required, 0..65535)
//	-delay D      delay added to each packet (Go duration, e.g. 100ms)
//	-jitter J     uniform +/- jitter (default 0)
//	-stats FILE   stats file, rewritten every 200ms and on exit
//	-seed N       jitter seed (default 0)
func Main(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("nfdelay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	q := fs.Int("q", -1, "NFQUEUE number to serve (0..65535)")
	var c Config
	fs.DurationVar(&c.Delay, "delay", 0, "delay added to each packet, e.g. 100ms")
	fs.DurationVar(&c.Jitter, "jitter", 0, "uniform +/- jitter around the delay")
	fs.StringVar(&c.StatsFile, "stats", "", "stats file (JSON), rewritten every 200ms and on exit")
	fs.Uint64Var(&c.Seed, "seed", 0, "seed of the jitter")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("nfdelay: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("nfdelay: unexpected arguments %q", fs.Args())
	}
	if *q < 0 || *q > 0xffff {
		return fmt.Errorf("nfdelay: -q %d: want a queue number in 0..65535", *q)
	}
	c.Queue = uint16(*q)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	fmt.Fprintf(stderr, "nfdelay: queue %d, delay %v, jitter %v\n", c.Queue, c.Delay, c.Jitter)
	return Run(ctx, c)
}
