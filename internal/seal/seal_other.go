//go:build !linux

package seal

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Supported says whether this system has the namespaces a seal uses:
// only Linux has.
const Supported = false

var errNoNamespaces = errors.New("sealing the sides needs Linux namespaces")

// SupervisorAttr does nothing where there are no namespaces.
func SupervisorAttr(*syscall.SysProcAttr) {}

// CommandAttr does nothing where there are no namespaces.
func CommandAttr(*syscall.SysProcAttr, *Spec) {}

// Start starts cmd.
func Start(cmd *exec.Cmd) error { return cmd.Start() }

// Enter fails where there are no namespaces.
func Enter(*Spec) error { return errNoNamespaces }

// HostPID fails where there are no namespaces.
func HostPID(int, int) (int, error) { return 0, errNoNamespaces }

// Shared is none where there are no namespaces.
func Shared([]string) []string { return nil }

// RootSockets is none where there are no namespaces.
func RootSockets([]string) []string { return nil }

// LayerFD is where a supervisor would find its side's layers.
const LayerFD = 5

// Trees are none where there are no namespaces.
func (s *Spec) Trees([]string) ([]*os.File, error) { return nil, errNoNamespaces }

// Release does nothing where there are no namespaces.
func (s *Spec) Release() {}

// Hold fails where there are no namespaces.
func Hold(string) int { return 2 }
