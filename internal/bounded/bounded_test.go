package bounded

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(small, "baseline file", 5); err != nil || string(data) != "12345" {
		t.Errorf("a file at its bound: %q, %v", data, err)
	}
	_, err := ReadFile(small, "baseline file", 4)
	if !IsTooLarge(err) || err.Error() != "baseline file "+small+" is 5 bytes, larger than the 4 bytes tailgate reads of a baseline file" {
		t.Errorf("a file past its bound: %v", err)
	}
	if bad, ok := err.(interface{ BadInput() bool }); !ok || !bad.BadInput() {
		t.Errorf("%T is not bad input", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), "noise file", 4); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want not-exist", err)
	}
}

// A stream that does not say its size (a pipe, a file growing) is read to
// one byte past the bound, never further.
func TestReadStopsPastTheBound(t *testing.T) {
	t.Parallel()
	r := &countingReader{}
	_, err := Read(r, "report.json", "report", 1<<20)
	if !IsTooLarge(err) || err.Error() != "report report.json is larger than the 1 MiB tailgate reads of a report" {
		t.Errorf("err = %v", err)
	}
	if r.n > 1<<20+64<<10 {
		t.Errorf("read %d bytes of an endless stream for a bound of 1 MiB", r.n)
	}
}

type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

func TestSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{512: "512 bytes", 180 << 10: "180 KiB", 16 << 20: "16 MiB", 25<<20 + 1<<19: "25.5 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
