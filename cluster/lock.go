package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockDir takes an exclusive flock on a directory, so two Up/Down runs on
// clusters in the same parent do not interleave. Locking the parent rather
// than a lock file leaves nothing behind and survives Down removing
// StateDir. The lock dies with the process, so a crash never leaves it held.
//
// Down removes the parent too when Up made it, so a waiter may get the lock
// of a directory that is gone: lockDir then locks what the path names now,
// and fails with an error matching os.ErrNotExist when it names nothing.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			held, herr := f.Stat()
			now, nerr := os.Stat(dir)
			if herr == nil && nerr == nil && os.SameFile(held, now) {
				return func() { f.Close() }, nil // closing drops the lock
			}
			f.Close()
			if f, err = os.Open(dir); err != nil {
				return nil, fmt.Errorf("lock %s: %w", dir, err)
			}
			continue
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s (another faultline cluster command holds it): %w", dir, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
