package seal

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The shared directories are $HOME, /tmp and PATH's writable directories
// (a bin's prefix), resolved, each once, none inside another; the job's
// state lies outside all of them.
func TestSharedAndState(t *testing.T) {
	root, err := os.MkdirTemp("/var/tmp", "seal-test-") // outside /tmp
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(root)
	home, other, link := filepath.Join(root, "home"), filepath.Join(root, "other"), filepath.Join(root, "link")
	bin, pyBin := filepath.Join(home, ".local/bin"), filepath.Join(root, "python/3.12/bin")
	for _, d := range []string{bin, other, pyBin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	got := Shared([]string{"HOME=" + home, "PATH=" + bin + ":relative:" + link + ":" + other + ":/nonexistent:" + pyBin})
	// A toolchain's bin brings its prefix: its lib/ (site-packages) too.
	if !slices.Equal(got, []string{home, "/tmp", other, filepath.Dir(pyBin)}) {
		t.Errorf("Shared = %q", got)
	}
	state, err := NewState(append(got, root))
	if err != nil {
		t.Fatal(err)
	}
	defer RemoveState(state)
	for _, d := range append(got, root) {
		if within(state, d) {
			t.Errorf("the state %s lies in shared %s", state, d)
		}
	}
	if err := os.MkdirAll(filepath.Join(state, "base/work/0/w1/work"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(state, "base/work/0/w1/work"), 0)
	if err := RemoveState(state); err != nil {
		t.Errorf("RemoveState: %v", err)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("the state %s is left: %v", state, err)
	}
}
