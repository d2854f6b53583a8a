//go:build !linux

package seal

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Only Linux has the namespaces a seal uses: here each call below does
// nothing, finds nothing or fails with errNoNamespaces.
const Supported = false

var errNoNamespaces = errors.New("sealing the sides needs Linux namespaces")

func SupervisorAttr(*syscall.SysProcAttr)          {}
func CommandAttr(*syscall.SysProcAttr, *Spec)      {}
func Start(cmd *exec.Cmd) error                    { return cmd.Start() }
func Enter(*Spec) error                            { return errNoNamespaces }
func HostPID(int, int) (int, error)                { return 0, errNoNamespaces }
func Shared([]string) []string                     { return nil }
func RootSockets([]string) []string                { return nil }
func (s *Spec) Trees([]string) ([]*os.File, error) { return nil, errNoNamespaces }
func (s *Spec) Release()                           {}
func Hold(string) int                              { return 2 }
