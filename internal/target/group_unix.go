//go:build unix

package target

import (
	"errors"
	"os/exec"
	"slices"
	"syscall"
)

// inOwnGroup makes cmd the leader of a new process group, so that stopping
// it reaches everything it started.
func inOwnGroup(cmd *exec.Cmd) { sysAttr(cmd).Setpgid = true }

func sysAttr(cmd *exec.Cmd) *syscall.SysProcAttr {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	return cmd.SysProcAttr
}

// signalGroup sends sig to every process of group pgid; a group that is
// already gone is not an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// groupRunning reports whether any process of group pgid still runs
// (zombies waiting to be reaped do not count). Without /proc it asks the
// kernel, which counts zombies too.
func groupRunning(pgid int) bool {
	all, err := allStats()
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	return slices.ContainsFunc(all, func(st procStat) bool { return st.PGRP == pgid && !st.gone() })
}
