package cli

import "golang.org/x/sys/unix"

// ProtectProcess makes tailgate undumpable (prctl PR_SET_DUMPABLE 0): another process of the same user, such as the
// target, a build or a dataset command tailgate starts, can then no longer read its /proc/<pid>/environ (which holds
// the job's token) or attach to its memory. A process with CAP_SYS_PTRACE (root) still can. The children themselves are
// dumpable again: execve resets the flag.
func ProtectProcess() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
