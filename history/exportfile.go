package history

import (
	"fmt"
	"os"
	"path/filepath"
)

// ExportEDNFile writes ops to path as ExportEDN does, through a temporary
// file beside path renamed into place, so a failed export never leaves a
// truncated history.edn that a Clojure tool would read as a shorter
// history. The file is made readable by all: an export is meant to be
// shared.
func ExportEDNFile(path string, ops []Op) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create output: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := ExportEDN(tmp, ops); err != nil {
		return err
	}
	// CreateTemp makes the file 0600.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
