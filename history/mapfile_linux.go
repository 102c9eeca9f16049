//go:build linux

package history

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// mapFile maps the regular file at path read-only, so that a history of
// hundreds of megabytes is read from the page cache instead of being copied
// into the heap first: the copy would be live, and counted by the
// collector's pacer, for the whole parse. Nothing the readers return
// references data (every string is converted, which copies), so unmap may
// run as soon as parsing ends. Files that cannot be mapped (pipes, empty
// files) are read into memory as before. MAP_POPULATE reads the file in
// one go, rather than a page fault at a time from every core.
func mapFile(path string) (data []byte, unmap func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if !st.Mode().IsRegular() || size <= 0 || int64(int(size)) != size {
		return readAll(f)
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return readAll(f) // a file system that cannot map: read it
	}
	mapped(data)
	return data, func() {
		if err := syscall.Munmap(data); err != nil {
			panic(fmt.Sprintf("unmap history %s: %v", path, err)) // only a bad address fails
		}
	}, nil
}

// readAll reads the rest of f into memory; unmap does nothing.
func readAll(f *os.File) ([]byte, func(), error) {
	data, err := io.ReadAll(f)
	return data, func() {}, err
}
