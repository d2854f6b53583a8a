package target

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/seal"
	"golang.org/x/sys/unix"
)

// sealedOrSkip is a supervised Children sealed with spec, or a skip that
// says why this machine cannot seal (not root and no unprivileged user
// namespaces, or a container that forbids mounting /proc).
func sealedOrSkip(t *testing.T, spec *seal.Spec) Children {
	t.Helper()
	ch := supervised(t)
	ch.Seal = spec
	probe := config.Command{Args: []string{"true"}}
	if _, saw, err := runCommand(context.Background(), &probe, ch); err != nil {
		t.Skipf("the sides cannot be sealed here (%s: %v)", saw, err)
	}
	return ch
}

// twoTrees are a base and a head tree in a temporary directory, each with
// a data file, and the seal of each side.
func twoTrees(t testing.TB) (baseTree, headTree string, base, head *seal.Spec) {
	t.Helper()
	dir := t.TempDir()
	baseTree, headTree = filepath.Join(dir, "base"), filepath.Join(dir, "head")
	for _, tree := range []string{baseTree, headTree} {
		if err := os.MkdirAll(filepath.Join(tree, "out"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, "out", "data"), []byte(filepath.Base(tree)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, head = seal.Sides(seal.Job{
		Base: seal.Side{Name: "base", Tree: baseTree}, Head: seal.Side{Name: "head", Tree: headTree}, State: state(t, nil),
	})
	return baseTree, headTree, base, head
}

// state is a job's directory of the sides' own files, removed with the
// test.
func state(t testing.TB, shared []string) string {
	t.Helper()
	dir, err := seal.NewState(shared)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := seal.RemoveState(dir); err != nil {
			t.Errorf("removing the job's state: %v", err)
		}
	})
	return dir
}

// A sealed head's command neither sees nor changes the base's tree: the
// base's data file is not there for it, its write fails, and the base's
// file keeps its content; its own tree it reads and writes as before.
func TestSealedHeadCannotReachTheBaseTree(t *testing.T) {
	baseTree, headTree, _, head := twoTrees(t)
	ch := sealedOrSkip(t, head)
	ch.Dir = headTree
	attack := config.Command{Shell: `cat out/data; echo head > out/mine; ls "$1"/out/data; echo slow > "$1"/out/data`}
	attack.Args = []string{"sh", "-c", attack.Shell, "sh", baseTree}
	out, saw, err := runCommand(context.Background(), &attack, ch)
	if err == nil {
		t.Fatalf("the head's write to the base tree succeeded: %s", saw)
	}
	if !strings.HasPrefix(string(out), "head\n") {
		t.Errorf("the head's command did not read its own tree: %q", out)
	}
	if got := readT(t, filepath.Join(baseTree, "out", "data")); got != "base\n" {
		t.Errorf("the base's data file holds %q after the head's attack, want %q", got, "base\n")
	}
	if got := readT(t, filepath.Join(headTree, "out", "mine")); got != "head\n" {
		t.Errorf("the head's write to its own tree left %q", got)
	}
	// Root in the command's own user namespace still cannot unmount what
	// hides the base: the mounts are locked.
	unmount := config.Command{Args: []string{"sh", "-c", `umount "$1" 2>/dev/null || umount -l "$1" 2>/dev/null; cat "$1"/out/data`, "sh", baseTree}}
	if out, _, err := runCommand(context.Background(), &unmount, ch); err == nil || strings.Contains(string(out), "base") {
		t.Errorf("the head unmounted the seal and read the base's file: %q (%v)", out, err)
	}
}

// A sealed side's /proc holds its own processes only: a process of the
// other side (here one tailgate started unsealed, standing in for the
// base's service) can be neither found nor signalled, and tailgate learns
// the real pid of the command it started.
func TestSealedSideCannotSignalOthers(t *testing.T) {
	_, headTree, _, head := twoTrees(t)
	ch := sealedOrSkip(t, head)
	ch.Dir = headTree
	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	pid := strconv.Itoa(victim.Process.Pid)
	attack := config.Command{Args: []string{"sh", "-c", `ls /proc | grep -c '^[0-9]'; kill -STOP "$1" && echo stopped`, "sh", pid}}
	out, _, _ := runCommand(context.Background(), &attack, ch)
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		t.Fatalf("no output from the attack: %q", out)
	}
	// The supervisor, sh and ls (and the count's grep): a handful, never
	// the machine's.
	if n, _ := strconv.Atoi(lines[0]); n == 0 || n > 6 {
		t.Errorf("the sealed side's /proc lists %d processes, want its own few", n)
	}
	if strings.Contains(string(out), "stopped") {
		t.Errorf("the sealed side stopped pid %s outside its namespace", pid)
	}
	if st, err := readStat(victim.Process.Pid); err != nil || st.State == 'T' {
		t.Errorf("the victim is stopped (%v) %c", err, st.State)
	}

	// The pid tailgate keeps for a sealed target is the one it sees.
	p, err := ch.newProc(context.Background(), &config.Command{Args: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	defer func() { signalGroup(p.group(), 9); p.wait() }()
	if p.pid <= 1 || p.pid == p.cmd.Process.Pid {
		t.Fatalf("pid %d for the sealed command (supervisor %d)", p.pid, p.cmd.Process.Pid)
	}
	if cmdline := readT(t, "/proc/"+strconv.Itoa(p.pid)+"/cmdline"); !strings.HasPrefix(cmdline, "sleep\x0030") {
		t.Errorf("pid %d is %q, not the sealed command", p.pid, cmdline)
	}
}

// Each side's temporary directory is its own: what the head leaves there
// the base does not find, at the same path.
func TestSealedSidesHavePrivateTempDirs(t *testing.T) {
	baseTree, headTree := t.TempDir(), t.TempDir()
	tmp := t.TempDir()
	base, head := seal.Sides(seal.Job{
		Base: seal.Side{Name: "base", Tree: baseTree}, Head: seal.Side{Name: "head", Tree: headTree},
		TempDir: tmp, State: state(t, nil),
	})
	hch := sealedOrSkip(t, head)
	bch := hch
	bch.Seal = base
	write := config.Command{Args: []string{"sh", "-c", `echo planted > "$1"/x && echo planted > /dev/shm/x`, "sh", tmp}}
	if _, saw, err := runCommand(context.Background(), &write, hch); err != nil {
		t.Fatalf("the head could not write its own temporary directory: %s: %v", saw, err)
	}
	read := config.Command{Args: []string{"sh", "-c", `cat "$1"/x /dev/shm/x 2>/dev/null; true`, "sh", tmp}}
	out, _, err := runCommand(context.Background(), &read, bch)
	if err != nil || strings.Contains(string(out), "planted") {
		t.Errorf("the base read the head's temporary files: %q (%v)", out, err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("the head's temporary file reached the host's %s: %v", tmp, entries)
	}
}

// A pinned file is the base's, read-only, in the head's view; the head's
// own file is untouched on disk.
func TestSealPinsTheBasesFile(t *testing.T) {
	baseTree, headTree, _, head := twoTrees(t)
	for tree, content := range map[string]string{baseTree: "echo base script", headTree: "echo head script"} {
		if err := os.WriteFile(filepath.Join(tree, "reset.sh"), []byte(content+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	head.Pins = []seal.Pin{{From: filepath.Join(baseTree, "reset.sh"), Over: filepath.Join(headTree, "reset.sh")}}
	ch := sealedOrSkip(t, head)
	ch.Dir = headTree
	run := config.Command{Args: []string{"sh", "-c", `sh reset.sh; echo changed >> reset.sh && echo wrote`}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _, _ := runCommand(ctx, &run, ch)
	if string(out) != "base script\n" {
		t.Errorf("the head ran %q, want the base's script only (and no write)", out)
	}
	if got := readT(t, filepath.Join(headTree, "reset.sh")); got != "echo head script\n" {
		t.Errorf("the head's own file became %q", got)
	}
}

func readT(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// tailgate makes itself undumpable (cmd/tailgate), which makes its /proc
// files root's: as another user it could then not write a new child's
// uid_map, and no side could be sealed. seal.Start lets it, for the start
// alone. (As root this holds anyway; run the package's tests as another
// user to see the case that matters on a runner.)
func TestSealedChildOfAnUndumpableTailgate(t *testing.T) {
	_, headTree, _, head := twoTrees(t)
	ch := sealedOrSkip(t, head)
	ch.Dir = headTree
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		t.Skipf("prctl: %v", err)
	}
	defer unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
	out, saw, err := runCommand(context.Background(), &config.Command{Args: []string{"sh", "-c", "id -u"}}, ch)
	if err != nil {
		t.Fatalf("a sealed child of an undumpable tailgate did not start: %s: %v", saw, err)
	}
	if got, want := strings.TrimSpace(string(out)), strconv.Itoa(os.Geteuid()); got != want {
		t.Errorf("the sealed command runs as uid %s, want tailgate's %s", got, want)
	}
	if d, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); d != 0 {
		t.Errorf("tailgate is dumpable (%d) after starting the sealed child", d)
	}
}

// BenchmarkChildStart is what the seal adds to every child's start: a
// command that does nothing (sh -c :), under the supervisor, unsealed,
// sealed without layers, and sealed as a job seals it (the side's own TMPDIR and a layer over each of $HOME,
// /tmp and the writable PATH directories of this process's environment).
func BenchmarkChildStart(b *testing.B) {
	baseTree, headTree, _, head := twoTrees(b)
	shared := seal.Shared(os.Environ())
	_, layered := seal.Sides(seal.Job{Base: seal.Side{Name: "base", Tree: baseTree}, Head: seal.Side{Name: "head", Tree: headTree},
		TempDir: b.TempDir(), Shared: shared, State: state(b, shared)})
	for _, arm := range []struct {
		name string
		seal *seal.Spec
	}{{"unsealed", nil}, {"sealed", head}, {"sealed-layers", layered}} {
		b.Run(arm.name, func(b *testing.B) {
			ch := Children{Environ: os.Environ(), Supervisor: OwnSupervisor(supervisorArg), Dir: headTree, Seal: arm.seal}
			probe := config.Command{Args: []string{"sh", "-c", ":"}}
			for b.Loop() {
				if _, saw, err := runCommand(context.Background(), &probe, ch); err != nil {
					b.Skipf("%s: %v", saw, err)
				}
			}
		})
	}
}

// A sealed side's own /dev/shm is a RAM disk, as the system's is, though
// the job's state lies on a disk: a service that keeps its data there
// (bench/radicale) would otherwise fsync every write to the disk.
func TestSealedSidesShmIsARAMDisk(t *testing.T) {
	if out, err := exec.Command("stat", "-f", "-c", "%T", "/dev/shm").Output(); err != nil || strings.TrimSpace(string(out)) != "tmpfs" {
		t.Skipf("the system's /dev/shm is no tmpfs: %q %v", out, err)
	}
	_, _, _, head := twoTrees(t)
	ch := sealedOrSkip(t, head)
	probe := config.Command{Args: []string{"stat", "-f", "-c", "%T", "/dev/shm"}}
	out, saw, err := runCommand(context.Background(), &probe, ch)
	if err != nil || strings.TrimSpace(string(out)) != "tmpfs" {
		t.Errorf("the head's /dev/shm is %q, not a tmpfs (%s: %v)", out, saw, err)
	}
}
