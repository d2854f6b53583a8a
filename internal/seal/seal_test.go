package seal

import (
	"os"
	"slices"
	"testing"
)

// Each side hides the other's checkout and the runner's directories,
// keeps its own tree where a hidden directory holds it (a worktree in
// $RUNNER_TEMP) and, for a worktree, the repository's .git read-only; it
// has a TMPDIR and /dev/shm of its own, and runs as tailgate's uid.
func TestSidesHideTheOtherSide(t *testing.T) {
	base, head := Sides(Job{
		Base:    Side{Name: "base", Tree: "/runner/_temp/tailgate-worktree-1/tree", GitDir: "/work/repo/.git"},
		Head:    Side{Name: "head", Tree: "/work/repo", GitDir: "/work/repo/.git"},
		Hidden:  []string{"/runner/_temp", "/runner/_temp/_runner_file_commands"},
		TempDir: "/tmp/tailgate-children-1", State: "/var/tmp/s",
	})
	for _, tc := range []struct {
		got, want *Spec
	}{
		{base, &Spec{Side: "base", Hide: []string{"/runner/_temp", "/runner/_temp/_runner_file_commands", "/var/tmp/s", "/work/repo"},
			Keep: []string{"/runner/_temp/tailgate-worktree-1/tree"}, KeepReadOnly: []string{"/work/repo/.git"},
			Own: []Pin{{"/var/tmp/s/base/tmp", "/tmp/tailgate-children-1"}, {"/var/tmp/s/base/shm", "/dev/shm"}}, UID: os.Geteuid(), GID: os.Getegid()}},
		{head, &Spec{Side: "head", Hide: []string{"/runner/_temp", "/runner/_temp/_runner_file_commands", "/var/tmp/s", "/runner/_temp/tailgate-worktree-1/tree"}, KeepReadOnly: []string{"/work/repo/.git"},
			Own: []Pin{{"/var/tmp/s/head/tmp", "/tmp/tailgate-children-1"}, {"/var/tmp/s/head/shm", "/dev/shm"}}, UID: os.Geteuid(), GID: os.Getegid()}},
	} {
		if tc.got.Encode() != tc.want.Encode() {
			t.Errorf("%s's seal:\n got %s\nwant %s", tc.want.Side, tc.got.Encode(), tc.want.Encode())
		}
		back, err := Decode(tc.got.Encode())
		if err != nil || back.Encode() != tc.got.Encode() {
			t.Errorf("%s's seal does not read back: %v", tc.want.Side, err)
		}
	}
	// With the job's state: the side's own TMPDIR and /dev/shm there, a
	// layer over each shared directory outside the trees (its tree, inside
	// $HOME, stays the real one), the state and root sockets hidden.
	base, _ = Sides(Job{
		Base: Side{Name: "base", Tree: "/home/r/work/base"}, Head: Side{Name: "head", Tree: "/home/r/work/head"},
		TempDir: "/tmp/c", Shared: []string{"/home/r", "/tmp", "/home/r/work/head/bin"}, Sockets: []string{"/run/docker.sock"}, State: "/var/tmp/s",
	})
	want := &Spec{Side: "base", Hide: []string{"/var/tmp/s", "/home/r/work/head"},
		Layers: []Layer{{"/home/r", "/var/tmp/s/base/upper/0", "/var/tmp/s/base/work/0"}, {"/tmp", "/var/tmp/s/base/upper/1", "/var/tmp/s/base/work/1"}},
		Real:   []string{"/home/r/work/base"}, Own: []Pin{{"/var/tmp/s/base/tmp", "/tmp/c"}, {"/var/tmp/s/base/shm", "/dev/shm"}},
		Sockets: []string{"/run/docker.sock"}, UID: os.Geteuid(), GID: os.Getegid()}
	if base.Encode() != want.Encode() {
		t.Errorf("base's seal in a job:\n got %s\nwant %s", base.Encode(), want.Encode())
	}
	// One tree for both (A/A): nothing of it is hidden.
	a, b := Sides(Job{Base: Side{Name: "base", Tree: "/work/repo"}, Head: Side{Name: "head", Tree: "/work/repo"}})
	if slices.Contains(a.Hide, "/work/repo") || slices.Contains(b.Hide, "/work/repo") {
		t.Errorf("a tree both sides share is hidden: %v, %v", a.Hide, b.Hide)
	}
	if _, err := Decode(`{"side":"head","hide":["relative/dir"]}`); err == nil {
		t.Error("a seal with a relative path was read")
	}
}
