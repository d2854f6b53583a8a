package seal

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
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

// Each side's own /dev/shm is a RAM disk, as the system's is, though the
// job's state lies on a disk (/var/tmp where /tmp is shared): a service
// that keeps its data on /dev/shm (Radicale, bench/radicale) would
// otherwise fsync every write to the disk. RemoveState removes it.
func TestOwnShmIsARAMDisk(t *testing.T) {
	var fs unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &fs); err != nil || fs.Type != unix.TMPFS_MAGIC {
		t.Skip("/dev/shm is not a tmpfs here")
	}
	state, err := NewState(Shared([]string{"HOME=" + t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	defer RemoveState(state)
	base, head := Sides(Job{Base: Side{Name: "base", Tree: "/w/base"}, Head: Side{Name: "head", Tree: "/w/head"}, State: state})
	var shms []string
	for _, s := range []*Spec{base, head} {
		for _, p := range s.Own {
			if p.Over != "/dev/shm" {
				continue
			}
			shms = append(shms, p.From)
			if err := os.MkdirAll(p.From, 0o700); err != nil { // as the supervisor does
				t.Fatal(err)
			}
			if err := unix.Statfs(p.From, &fs); err != nil || fs.Type != unix.TMPFS_MAGIC {
				t.Errorf("the %s side's /dev/shm %s (state %s) is no tmpfs: type %#x, %v", s.Side, p.From, state, fs.Type, err)
			}
		}
	}
	if len(shms) != 2 || shms[0] == shms[1] {
		t.Fatalf("the sides' own /dev/shm: %q", shms)
	}
	if err := RemoveState(state); err != nil {
		t.Fatal(err)
	}
	for _, d := range append(shms, state) {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("%s is left: %v", d, err)
		}
	}
}
