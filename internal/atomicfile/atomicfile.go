// Package atomicfile owns replacing files atomically: write to a temporary
// file in the same directory, sync, then rename over the target. A failed
// write never clobbers the existing file.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what fill writes.
func Write(path string, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	for _, step := range []func() error{func() error { return fill(tmp) }, tmp.Sync, tmp.Close, func() error { return os.Chmod(tmp.Name(), 0o644) }} {
		if err = step(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return nil
}
