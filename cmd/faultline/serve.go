package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/serve"
)

func newServeCmd() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "serve [DIR] [--addr HOST:PORT]",
		Short: "Browse past sessions in a web browser: verdicts, findings, plots, histories",
		Long:  help("serve"),
		Example: `  faultline serve                      # test-sessions/ at http://127.0.0.1:8080/
  faultline serve /tmp/ci/test-sessions --addr 127.0.0.1:9000
  faultline serve --addr 0.0.0.0:8080  # every interface: printed as a warning`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr("serve: want at most one DIR (see 'faultline serve --help')")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "test-sessions"
			if len(args) == 1 {
				dir = args[0]
			}
			return runServe(cmd, dir, addr)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "HOST:PORT to listen on (loopback unless you name another address)")
	return cmd
}

func runServe(cmd *cobra.Command, dir, addr string) error {
	warning, err := serve.AddrWarning(addr)
	if err != nil {
		return usageErr("serve: %w", err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return &exitError{code: exitRejected, err: fmt.Errorf("serve: %s: %w", dir, err)}
	}
	if warning != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "faultline: serve: warning:", warning)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &exitError{code: exitRejected, err: fmt.Errorf("serve: listen on %s: %w", addr, err)}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(cmd.OutOrStdout(), "serving the sessions under %s at http://%s/ (Ctrl-C stops)\n", dir, ln.Addr())
	if err := serve.Serve(ctx, ln, dir); err != nil {
		return &exitError{code: exitRejected, err: err}
	}
	return nil
}
