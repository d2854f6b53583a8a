package target

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when the thread that started it
// ends (Pdeathsig). It reaches cmd only, not what cmd forks, and it
// follows the starting thread, not the process: the supervisor, which
// keeps its thread, relies on it; tailgate relies on the supervisor.
func dieWithParent(cmd *exec.Cmd) { sysAttr(cmd).Pdeathsig = syscall.SIGKILL }
