//go:build !unix

package target

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

var errNoGroups = errors.New("starting a target needs process groups (Linux or another Unix)")

func inOwnGroup(*exec.Cmd) {}

func signalGroup(int, syscall.Signal) error { return errNoGroups }

func groupRunning(int) bool { return false }

// CanSupervise says whether Supervise works here: it needs process groups.
const CanSupervise = false

// Supervise needs process groups, which this system does not have.
func Supervise([]string) int {
	fmt.Fprintln(os.NewFile(4, "tailgate-report"), "failed", errNoGroups)
	return 2
}
