package target

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/seal"
)

// sides are the children of a sealed job's two sides, whose runner has a
// $HOME and a directory first in PATH of its own (fake ones here), and
// the host's view of those.
type sides struct {
	base, head     Children
	home, bin, tmp string
}

// sealedSides seals two trees as a job does: one environment per side,
// kept for the job, its $HOME, /tmp and PATH directories layered.
func sealedSides(t *testing.T, sockets ...string) sides {
	t.Helper()
	baseTree, headTree, _, _ := twoTrees(t)
	s := sides{home: t.TempDir(), bin: t.TempDir(), tmp: t.TempDir()}
	if err := os.WriteFile(filepath.Join(s.home, ".gitconfig"), []byte("runner's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	environ := append(slices.Clip(os.Environ()), "HOME="+s.home, "PATH="+s.bin+":"+os.Getenv("PATH"), "TMPDIR="+s.tmp)
	shared := seal.Shared(environ)
	base, head := seal.Sides(seal.Job{
		Base: seal.Side{Name: "base", Tree: baseTree}, Head: seal.Side{Name: "head", Tree: headTree},
		TempDir: s.tmp, Shared: shared, Sockets: sockets, State: state(t, shared),
	})
	t.Cleanup(func() { base.Release(); head.Release() }) // before the state's removal
	s.head = sealedOrSkip(t, head)
	s.head.Environ, s.head.Dir = environ, headTree
	s.base = s.head
	s.base.Seal, s.base.Dir = base, baseTree
	return s
}

// sh runs script in ch and returns its output; a failure fails the test.
func sh(t *testing.T, ch Children, script string) string {
	t.Helper()
	out, saw, err := runCommand(context.Background(), &config.Command{Args: []string{"sh", "-c", script}}, ch)
	if err != nil {
		t.Fatalf("%s: %v (%q)", saw, err, out)
	}
	return string(out)
}

// A side's commands share one TMPDIR and /dev/shm for the job: its reset
// finds the database its start wrote there. The other side does not, and
// nothing of it reaches the host's TMPDIR.
func TestSealedSideKeepsItsTempDirAcrossCommands(t *testing.T) {
	s := sealedSides(t)
	sh(t, s.head, `mkdir -p "$TMPDIR/data/8080" && echo golden > "$TMPDIR/data/8080/db" && echo 123 > /dev/shm/pid`)
	reset := &config.Action{Command: &config.Command{Shell: `grep -q golden "$TMPDIR/data/8080/db" && grep -q 123 /dev/shm/pid`}}
	if err := Reset(context.Background(), nil, "", reset, s.head); err != nil {
		t.Errorf("the head's reset did not find its start's files: %v", err)
	}
	// The base's reset does not, and says where the command ran.
	err := Reset(context.Background(), nil, "", reset, s.base)
	if err == nil || !strings.Contains(err.Error(), "in the base side's own environment: one TMPDIR") {
		t.Errorf("the base's reset: %v", err)
	}
	if got := sh(t, s.base, `cat "$TMPDIR/data/8080/db" /dev/shm/pid 2>/dev/null; true`); got != "" {
		t.Errorf("the base read the head's temporary files: %q", got)
	}
	if entries, _ := os.ReadDir(s.tmp); len(entries) != 0 {
		t.Errorf("the head's temporary files reached the host's %s: %v", s.tmp, entries)
	}
}

// What the head writes into $HOME (a .pth file that Python runs at every
// start) its own later commands see, the base's never; the base sees
// $HOME as it was, and the runner's $HOME is unchanged.
func TestHeadWritesToHomeStayOnItsSide(t *testing.T) {
	s := sealedSides(t)
	pth := ".local/lib/python3.12/site-packages/slow.pth"
	sh(t, s.head, `mkdir -p "$HOME/$(dirname `+pth+`)" && echo 'import time; time.sleep(1)' > "$HOME/`+pth+`" && echo head >> "$HOME/.gitconfig"`)
	if got := sh(t, s.head, `cat "$HOME/`+pth+`"`); !strings.Contains(got, "sleep") {
		t.Errorf("the head's next command does not see its own write: %q", got)
	}
	if got := sh(t, s.base, `cat "$HOME/`+pth+`" 2>/dev/null; cat "$HOME/.gitconfig"`); got != "runner's\n" {
		t.Errorf("the base sees %q in $HOME, want the runner's .gitconfig alone", got)
	}
	if _, err := os.Stat(filepath.Join(s.home, pth)); err == nil {
		t.Errorf("the head's .pth reached the runner's $HOME")
	}
	if got := readT(t, filepath.Join(s.home, ".gitconfig")); got != "runner's\n" {
		t.Errorf("the runner's .gitconfig became %q", got)
	}
}

// A program the head writes into a directory early in PATH (the runner's
// ~/.local/bin) does not resolve for the base: neither in a shell of the
// base's nor when tailgate looks the base's program up.
func TestHeadProgramInPathDoesNotResolveForTheBase(t *testing.T) {
	s := sealedSides(t)
	sh(t, s.head, `printf '#!/bin/sh\necho poisoned\n' > "`+s.bin+`/tgtool" && chmod +x "`+s.bin+`/tgtool"`)
	if got := sh(t, s.head, `tgtool`); got != "poisoned\n" {
		t.Errorf("the head's own program did not resolve for it: %q", got)
	}
	if got := sh(t, s.base, `tgtool 2>/dev/null || echo missing`); got != "missing\n" {
		t.Errorf("the base's shell resolved tgtool to the head's: %q", got)
	}
	if out, _, err := runCommand(context.Background(), &config.Command{Args: []string{"tgtool"}}, s.base); err == nil {
		t.Errorf("the base's command tgtool ran the head's program: %q", out)
	}
	// A program a side installed itself is found for its own commands.
	if out, _, err := runCommand(context.Background(), &config.Command{Args: []string{"tgtool"}}, s.head); err != nil || string(out) != "poisoned\n" {
		t.Errorf("the head's command tgtool did not run the head's own program: %q (%v)", out, err)
	}
}

// Sockets that grant root are not sockets for a side (unless the config
// allows them: then they are not in the job's list).
func TestSealHidesRootSockets(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s := sealedSides(t, sock)
	if got := sh(t, s.head, `[ -S "`+sock+`" ] && echo reachable || echo hidden`); got != "hidden\n" {
		t.Errorf("the head sees the root socket: %q", got)
	}
	if got := seal.RootSockets([]string{"XDG_RUNTIME_DIR=" + filepath.Dir(sock)}); !slices.Contains(got, sock) {
		t.Errorf("RootSockets = %v, want %s among them", got, sock)
	}
}

// replacedEnv makes the test binary a tailgate whose executable is
// replaced by another program before it starts a child.
const replacedEnv = "TAILGATE_TARGET_TEST_REPLACED"

// actReplaced is that tailgate: it takes its supervisor's command line at
// start, moves the program named by replacedEnv over its own executable
// (as a head could over the file TAILGATE_BIN names), then runs a child.
func actReplaced(evil string) int {
	sup := OwnSupervisor(supervisorArg)
	self, err := os.Executable()
	if err == nil {
		err = os.Rename(evil, self)
	}
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	ch := Children{Environ: os.Environ(), Supervisor: sup}
	out, _, err := runCommand(context.Background(), &config.Command{Args: []string{"sh", "-c", "echo supervised"}}, ch)
	os.Stdout.Write(out)
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	return 0
}

// The supervisor is the executable tailgate started as, not whatever its
// path names later.
func TestSupervisorIsTheExecutableTailgateStartedAs(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "tailgate")
	data, err := os.ReadFile(testExe(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(dir, "evil")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho poisoned\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), replacedEnv+"="+evil)
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "supervised\n" {
		t.Errorf("after its executable was replaced, tailgate's child printed %q (%v), want it supervised by tailgate", out, err)
	}
}

// Children never learn where tailgate's executable lies.
func TestChildrenGetNoTailgateBin(t *testing.T) {
	if env := ChildEnv([]string{"TAILGATE_BIN=/usr/local/bin/tailgate", "A=1"}, nil, nil); slices.Contains(env, "TAILGATE_BIN=/usr/local/bin/tailgate") {
		t.Errorf("a child gets TAILGATE_BIN: %v", env)
	}
}

// A side's commands that run at once (its service and its reset) share
// one layer, mounted by the side's holder: each sees what the other
// writes to $HOME and $TMPDIR while both run (an overlay per command over
// the same upper directory does not: the service never sees the reset's
// file); the other side sees none of it, and the holder ends with the job.
func TestSideCommandsRunAtOnce(t *testing.T) {
	s := sealedSides(t)
	wait := func(test string) string { return `for i in $(seq 100); do ` + test + ` && break; sleep 0.1; done; ` }
	svc, err := s.head.newProc(context.Background(), &config.Command{Args: []string{"sh", "-c", `echo up > "$HOME/svc" && echo up > "$TMPDIR/svc" && ` +
		wait(`[ -s "$HOME/reset" ] && [ -s "$TMPDIR/reset" ]`) + `cat "$HOME/reset" "$TMPDIR/reset" > "$HOME/seen.tmp" && mv "$HOME/seen.tmp" "$HOME/seen"; sleep 30`}})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.start(); err != nil {
		t.Fatal(err)
	}
	defer func() { signalGroup(svc.group(), 9); svc.wait() }()
	got := sh(t, s.head, wait(`[ -s "$HOME/svc" ]`)+`echo reset > "$HOME/reset"; echo reset > "$TMPDIR/reset"; `+wait(`[ -s "$HOME/seen" ]`)+`cat "$HOME/svc" "$TMPDIR/svc" "$HOME/seen"`)
	if got != "up\nup\nreset\nreset\n" {
		t.Errorf("the head's two commands, running at once, saw %q of each other's writes", got)
	}
	if got := sh(t, s.base, `cat "$HOME/svc" "$HOME/reset" "$HOME/seen" "$TMPDIR/svc" "$TMPDIR/reset" 2>/dev/null; true`); got != "" {
		t.Errorf("the base saw the head's writes: %q", got)
	}
	if n := len(holders(t, s.head.Seal)); n != 1 {
		t.Errorf("the head has %d holders while its commands run, want 1", n)
	}
	signalGroup(svc.group(), 9)
	svc.wait()
	s.head.Seal.Release()
	if pids := holders(t, s.head.Seal); len(pids) > 0 {
		t.Errorf("the head's holder is left after the job: %v", pids)
	}
	if _, _, err := runCommand(context.Background(), &config.Command{Args: []string{"true"}}, s.head); err == nil || !strings.Contains(err.Error(), "job has ended") {
		t.Errorf("a command of the head after the job's end: %v", err)
	}
}

// holdingEnv makes the test binary a tailgate that runs one command of
// the side it seals (the spec), says so and waits to be killed.
const holdingEnv = "TAILGATE_TARGET_TEST_HOLDING"

func actHolding(arg string) int {
	spec, err := seal.Decode(arg)
	if err == nil {
		ch := Children{Environ: os.Environ(), Supervisor: OwnSupervisor(supervisorArg), Seal: spec}
		_, _, err = runCommand(context.Background(), &config.Command{Args: []string{"true"}}, ch)
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("ran")
	time.Sleep(time.Minute)
	return 0
}

// A side's holder ends when tailgate is killed: nothing is left.
func TestHolderEndsWithTailgate(t *testing.T) {
	s := sealedSides(t)
	cmd := exec.Command(testExe(t))
	cmd.Env = append(os.Environ(), holdingEnv+"="+s.base.Seal.Encode())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ran\n" {
		t.Fatalf("the tailgate said %q", line)
	}
	if n := len(holders(t, s.base.Seal)); n != 1 {
		t.Fatalf("%d holders while tailgate runs, want 1", n)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for end := time.Now().Add(5 * time.Second); len(holders(t, s.base.Seal)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the holder is left after tailgate was killed: %v", holders(t, s.base.Seal))
		}
	}
}

// holders are the pids of the processes that hold spec's layers.
func holders(t *testing.T, spec *seal.Spec) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), HoldFlag+"\x00"+spec.Encode()) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// A side that cannot have its layer does not start, and the error names
// the directory and what the layer needs.
func TestSideWithoutItsLayerDoesNotStart(t *testing.T) {
	_, headTree, _, head := twoTrees(t)
	ch := sealedOrSkip(t, head)
	ch.Dir = headTree
	dir := filepath.Join(t.TempDir(), "a,b")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := *head
	spec.Layers = []seal.Layer{{Dir: dir, Upper: filepath.Join(t.TempDir(), "u"), Work: filepath.Join(t.TempDir(), "w")}}
	ch.Seal = &spec
	_, _, err := runCommand(context.Background(), &config.Command{Args: []string{"true"}}, ch)
	if err == nil || !strings.Contains(err.Error(), "giving the head side a layer of its own over "+dir+" (overlayfs") {
		t.Errorf("a side without its layer: %v", err)
	}
}
