//go:build !linux

package target

import "os/exec"

// dieWithParent: there is no parent-death signal here; the supervisor's
// life pipe is what ends a child when tailgate dies.
func dieWithParent(*exec.Cmd) {}
