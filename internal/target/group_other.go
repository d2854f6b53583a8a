//go:build !unix

package target

import (
	"errors"
	"os/exec"
	"syscall"
)

// errNoGroups says why a started target cannot be managed here.
var errNoGroups = errors.New("starting a target needs process groups (Linux or another Unix)")

func inOwnGroup(*exec.Cmd) {}

func signalGroup(int, syscall.Signal) error { return errNoGroups }

func groupRunning(int) bool { return false }
