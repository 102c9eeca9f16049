//go:build !linux

package history

// mapFile reads the file at path into memory where mapping it is not
// implemented; unmap does nothing.
func mapFile(path string) (data []byte, unmap func(), err error) {
	return readWhole(path)
}
