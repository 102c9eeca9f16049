package control

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// localRemote runs commands on this host through /bin/sh, with the same Cmd
// semantics as ssh (the command line is rendered identically).
type localRemote struct {
	node string
	sudo *sudoer
}

// Local returns a Remote for this host named node. Commands run through
// /bin/sh -c; Sudo uses sudo -n unless the process already runs as root.
func Local(node string) Remote {
	return &localRemote{node: node, sudo: &sudoer{root: os.Geteuid() == 0}}
}

func (l *localRemote) Node() string { return l.node }

func (l *localRemote) Close() error { return nil }

func (l *localRemote) Run(ctx context.Context, c Cmd) (Result, error) {
	line, stdin, err := l.sudo.prepare(ctx, c, func(ctx context.Context, probe Cmd) error {
		_, err := l.run(ctx, QuoteArgv(probe.Argv), probe, nil)
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("node %s: %w", l.node, err)
	}
	return l.run(ctx, line, c, stdin)
}

func (l *localRemote) Upload(ctx context.Context, local, remote string) error {
	if err := copyLocal(ctx, local, remote); err != nil {
		return fmt.Errorf("node %s: upload %s to %s: %w", l.node, local, remote, err)
	}
	return nil
}

func (l *localRemote) Download(ctx context.Context, remote, local string) error {
	if err := copyLocal(ctx, remote, local); err != nil {
		return fmt.Errorf("node %s: download %s to %s: %w", l.node, remote, local, err)
	}
	return nil
}

func copyLocal(ctx context.Context, src, dst string) error {
	return uploadFrom(src, func(in *os.File, st fs.FileInfo) error {
		return writeFileAtomic(dst, st.Mode().Perm(), func(w io.Writer) error {
			_, err := io.Copy(w, ctxReader{ctx, in})
			return err
		})
	})
}

// writeFileAtomic writes dst through a temporary file in the same directory
// and renames it into place, so dst is never seen half written.
func writeFileAtomic(dst string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.faultline-tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := fill(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// ctxReader stops a copy when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
