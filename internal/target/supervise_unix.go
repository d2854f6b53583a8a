//go:build unix

package target

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/seal"
)

// CanSupervise says whether Supervise works here: it needs process groups.
const CanSupervise = true

// Supervise is the body of the supervisor process (Children.Supervisor).
// args are "--", the command's path and its argv, after SealFlag and a
// seal for a sealed side (then it makes the seal's mounts, seal.Enter,
// and starts the command in namespaces of its own, seal.CommandAttr);
// HoldFlag and a seal make it the side's holder instead (seal.Hold). It
// says the command's pid on fd 4, then:
//   - when the command exits, reports its status on fd 4 and returns its
//     exit code (128+n for signal n);
//   - when tailgate is gone first (fd 3, whose other end only tailgate
//     holds, reads end-of-file, even after a SIGKILL), it ends its group
//     and tree: SIGTERM, then SIGKILL after StopGrace.
//
// The caller must catch SIGTERM and SIGINT (an ignored signal stays
// ignored in the command): stopping a target signals its whole group, and
// the supervisor must outlive the command to report how it ended.
func Supervise(args []string) int {
	if len(args) == 2 && args[0] == HoldFlag {
		return seal.Hold(args[1])
	}
	life, report := os.NewFile(3, "tailgate-life"), os.NewFile(4, "tailgate-report")
	// Neither pipe may reach the command: the life pipe's end-of-file
	// must mean tailgate is gone, not that the command closed it.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	var spec *seal.Spec
	if len(args) >= 2 && args[0] == SealFlag {
		var err error
		if spec, err = seal.Decode(args[1]); err != nil {
			fmt.Fprintln(report, "failed", err)
			return 2
		}
		args = args[2:]
	}
	if len(args) < 3 || args[0] != "--" {
		fmt.Fprintln(report, "failed supervisor: want -- PATH ARGV0 [ARG...]")
		return 2
	}
	cmd, err := startSupervised(args[1], args[2:], spec)
	if err != nil {
		fmt.Fprintln(report, "failed", strings.Join(strings.Fields(err.Error()), " "))
		return 127
	}
	fmt.Fprintln(report, "pid", cmd.Process.Pid)
	if !outlives(cmd, life) {
		return 1 // nobody is left to read a status
	}
	st := exitStatus{code: cmd.ProcessState.ExitCode()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		st = exitStatus{signal: ws.Signal()}
	}
	fmt.Fprintln(report, st.line())
	if st.signal != 0 {
		return 128 + int(st.signal)
	}
	return st.code
}

// startSupervised starts the command path (argv) on this goroutine's
// locked thread, in spec's seal when not nil.
func startSupervised(path string, argv []string, spec *seal.Spec) (*exec.Cmd, error) {
	// A parent-death signal follows the thread that forked, so this
	// goroutine keeps its thread for the supervisor's whole life.
	runtime.LockOSThread()
	// Env left nil: the command gets the supervisor's environment, which
	// tailgate built for it (ChildEnv).
	cmd := &exec.Cmd{Path: path, Args: argv, Stdout: os.Stdout, Stderr: os.Stderr}
	dieWithParent(cmd) // should the supervisor itself be killed
	var err error
	if spec != nil {
		if err = seal.Enter(spec); err == nil {
			seal.CommandAttr(sysAttr(cmd), spec)
			if !strings.ContainsRune(cmd.Path, '/') {
				cmd.Path, err = exec.LookPath(cmd.Path) // in the side's own view (newProc)
			}
		}
	}
	if err == nil {
		err = cmd.Start()
	}
	return cmd, err
}

// outlives waits for the command to exit (true) or tailgate to be gone
// (false, after ending the supervisor's group and tree).
func outlives(cmd *exec.Cmd, life *os.File) bool {
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	orphaned := make(chan struct{})
	go func() {
		io.Copy(io.Discard, life) // tailgate never writes: this returns when it is gone
		close(orphaned)
	}()
	select {
	case <-exited:
		return true
	case <-orphaned:
		endDescendants(os.Getpid(), exited)
		return false
	}
}

// endDescendants ends everything the supervisor leads (its process group)
// or started (its process tree), itself excepted: SIGTERM first, SIGKILL
// to what still runs after StopGrace.
func endDescendants(self int, exited <-chan struct{}) {
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGTERM, StopGrace}, {syscall.SIGKILL, killWait}} {
		signalOthers(self, step.sig)
		for deadline := time.Now().Add(step.wait); othersRunning(self, exited) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// others lists the running processes of the supervisor's group and tree;
// ok is false without /proc.
func others(self int) (pids []int, ok bool) {
	all, err := allStats()
	if err != nil {
		return nil, false
	}
	members := append(tree(all, self), slices.DeleteFunc(all, func(st procStat) bool { return st.PGRP != self })...)
	seen := map[int]bool{self: true}
	for _, st := range members {
		if !seen[st.PID] && !st.gone() {
			seen[st.PID] = true
			pids = append(pids, st.PID)
		}
	}
	return pids, true
}

func signalOthers(self int, sig syscall.Signal) {
	pids, ok := others(self)
	if !ok { // no /proc: the group, the supervisor included (it catches SIGTERM)
		syscall.Kill(-self, sig)
		return
	}
	for _, pid := range pids {
		syscall.Kill(pid, sig)
	}
}

func othersRunning(self int, exited <-chan struct{}) bool {
	pids, ok := others(self)
	if !ok {
		select {
		case <-exited:
			return false
		default:
			return true
		}
	}
	return len(pids) > 0
}
