package control

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// Upload copies local to remote over sftp: into a temporary file beside the
// destination, then renamed over it (posix-rename where the server has it).
func (r *sshRemote) Upload(ctx context.Context, local, remote string) error {
	err := uploadFrom(local, func(in *os.File, st fs.FileInfo) error {
		return r.withSFTP(ctx, func(sc *sftp.Client) error { return upload(ctx, sc, in, st, remote) })
	})
	if err != nil {
		return fmt.Errorf("node %s: upload %s to %s: %w", r.node.Name, local, remote, err)
	}
	return nil
}

// uploadFrom opens the local regular file for fn before any connection is
// used, so a wrong local path fails fast.
func uploadFrom(local string, fn func(*os.File, fs.FileInfo) error) error {
	in, err := os.Open(local)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", local)
	}
	return fn(in, st)
}

// Download copies remote to local over sftp, through a temporary local file.
func (r *sshRemote) Download(ctx context.Context, remote, local string) error {
	err := r.withSFTP(ctx, func(sc *sftp.Client) error { return download(ctx, sc, remote, local) })
	if err != nil {
		return fmt.Errorf("node %s: download %s to %s: %w", r.node.Name, remote, local, err)
	}
	return nil
}

// withSFTP runs fn with an sftp client on its own session; ctx ending closes
// the client, which aborts the transfer.
func (r *sshRemote) withSFTP(ctx context.Context, fn func(*sftp.Client) error) error {
	release, err := r.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	var sc *sftp.Client
	err = r.withClient(ctx, "start sftp", func(c *ssh.Client) (err error) {
		sc, err = sftp.NewClient(c, sftp.UseConcurrentWrites(true))
		return err
	})
	if err != nil {
		return err
	}
	defer sc.Close()
	stop := context.AfterFunc(ctx, func() { sc.Close() })
	defer stop()
	err = fn(sc)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w (%w)", context.Cause(ctx), err)
	}
	return err
}

func upload(ctx context.Context, sc *sftp.Client, in *os.File, st fs.FileInfo, remote string) (err error) {
	tmp := path.Join(path.Dir(remote), "."+path.Base(remote)+"."+randomSuffix()+UploadTempSuffix)
	f, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			sc.Remove(tmp)
		}
	}()
	if _, err := f.ReadFrom(sizedReader{ctxReader{ctx, in}, st.Size()}); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Chmod(st.Mode().Perm()); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp, err)
	}
	if _, ok := sc.HasExtension("fsync@openssh.com"); ok {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("fsync %s: %w", tmp, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if _, ok := sc.HasExtension("posix-rename@openssh.com"); ok {
		err = sc.PosixRename(tmp, remote)
	} else {
		// Plain SFTP rename refuses to replace a file; without the
		// extension there is a short window with no file at all.
		if rerr := sc.Remove(remote); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return fmt.Errorf("replace %s: %w", remote, rerr)
		}
		err = sc.Rename(tmp, remote)
	}
	if err != nil && connDead(err) {
		return fmt.Errorf("rename %s: %w: %w", tmp, ErrIndeterminate, err)
	}
	if err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return nil
}

func download(ctx context.Context, sc *sftp.Client, remote, local string) error {
	f, err := sc.Open(remote)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", remote)
	}
	return writeFileAtomic(local, st.Mode().Perm(), func(w io.Writer) error {
		_, err := f.WriteTo(ctxWriter{ctx, w})
		return err
	})
}

// sizedReader tells sftp the upload size, which enables concurrent writes.
type sizedReader struct {
	io.Reader
	size int64
}

func (s sizedReader) Size() int64 { return s.size }

// ctxWriter stops a copy when ctx ends.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:]) // documented never to return an error
	return hex.EncodeToString(b[:])
}
