// Package bounded reads the files tailgate is handed with a bound on their
// size, chosen by each reader: a file past its bound is a clear error
// naming the file and the bound, found before it is read whole.
package bounded

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// TooLargeError reports a file larger than its reader takes: bad input
// (exit 2).
type TooLargeError struct {
	Path  string
	What  string // what the file is, e.g. "baseline file"
	Limit int64
	Size  int64 // the file's size when known, else 0 (at least Limit+1)
}

func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("%s %s is %s, larger than the %s tailgate reads of a %s", e.What, e.Path, Size(e.Size), Size(e.Limit), e.What)
	}
	return fmt.Sprintf("%s %s is larger than the %s tailgate reads of a %s", e.What, e.Path, Size(e.Limit), e.What)
}

// BadInput marks the error as the input's fault (pipeline maps it to exit 2).
func (e *TooLargeError) BadInput() bool { return true }

// ReadFile reads the file at path, of at most limit bytes; what names the
// file in the error ("baseline file").
func ReadFile(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, &TooLargeError{Path: path, What: what, Limit: limit, Size: st.Size()}
	}
	return Read(f, path, what, limit)
}

// Read reads r to its end, at most limit bytes; path and what name it in
// the error.
func Read(r io.Reader, path, what string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, What: what, Limit: limit}
	}
	return data, nil
}

// IsTooLarge reports whether err is (or wraps) a TooLargeError.
func IsTooLarge(err error) bool {
	var e *TooLargeError
	return errors.As(err, &e)
}

// Size is n bytes for a reader: "16 MiB", "180 KiB", "512 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
