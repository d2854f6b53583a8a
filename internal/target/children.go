package target

import (
	"os"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/seal"
)

// Variables tailgate sets for dataset commands and load tools.
const (
	// TargetURLEnv holds the target's base URL (target.url).
	TargetURLEnv = "TAILGATE_TARGET_URL"
	// SideEnv is "base" or "head" in A/B; it is not set otherwise.
	SideEnv = "TAILGATE_SIDE"
	// SideDirEnv is the absolute path of the source tree the target is
	// built and started from: in A/B the side's own (the base's
	// worktree), else tailgate's working directory. The target, dataset
	// commands and a load tool see it.
	SideDirEnv = "TAILGATE_SIDE_DIR"
)

// Children is how tailgate makes its child processes: the target, dataset
// commands, a load tool (engine: command) and build commands. Each gets the
// environment that ChildEnv builds from the one tailgate was given (never
// tailgate's own process environment, which only the CLI reads), and each
// ends when tailgate ends, also when tailgate is killed with SIGKILL.
type Children struct {
	// Environ is the environment tailgate was given, as "NAME=value".
	// Children get it without credentials. Nil gives them an empty one
	// (plus their TAILGATE_* variables): a caller that forgets it leaks
	// nothing.
	Environ []string
	// PassEnv names credentials that children get anyway (config pass_env).
	PassEnv []string
	// Supervisor is the command line (tailgate's own executable and its
	// hidden subcommand) that runs Supervise. Every child is started under
	// it, so that when tailgate dies, even by SIGKILL, the supervisor ends
	// the child's whole process group. Empty: children are started
	// directly, with a parent-death signal on Linux, which reaches the
	// direct child only (not what a `sh -c` forks).
	Supervisor []string
	// Seal, when set, is what this side's children may see (package
	// seal): each is started under the supervisor in namespaces of its
	// own, which the supervisor enters and mounts before it starts the
	// command. It needs the supervisor.
	Seal *seal.Spec
	// Dir is the working directory of a child whose caller names none: an
	// A/B side's tree, so that a dataset or counters command of the base
	// runs the base's files. "" is tailgate's own.
	Dir string

	extra []string // "NAME=value" set for this child, after Environ
}

// With returns c with variables ("NAME=value") added for the child; they
// override Environ's.
func (c Children) With(vars ...string) Children {
	c.extra = append(slices.Clip(c.extra), vars...)
	return c
}

// Env is the child's environment.
func (c Children) Env() []string { return ChildEnv(c.Environ, c.PassEnv, c.extra) }

// ChildEnv builds a child's environment: parent without the credentials
// (IsCredential) that pass does not name, then extra. A name set twice keeps
// its last value, once.
func ChildEnv(parent, pass, extra []string) []string {
	out := make([]string, 0, len(parent)+len(extra))
	index := map[string]int{}
	add := func(kv string) {
		name, _, _ := strings.Cut(kv, "=")
		if i, seen := index[name]; seen {
			out[i] = kv
			return
		}
		index[name] = len(out)
		out = append(out, kv)
	}
	for _, kv := range parent {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || (IsCredential(name) && !slices.Contains(pass, name)) {
			continue
		}
		add(kv)
	}
	for _, kv := range extra {
		add(kv)
	}
	return out
}

// credentialNames are the GitHub and Actions variables that carry a token
// or a capability of the job, and so never reach the service under test
// or any other child unless the config passes them on.
var credentialNames = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GH_ENTERPRISE_TOKEN",
	// The runner's command files: a child appending to them would set
	// variables, PATH entries, outputs or the summary of later steps.
	"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
	// The runner's temp directory holds those files (its
	// _runner_file_commands); children get a private TMPDIR instead.
	"RUNNER_TEMP",
	// Where tailgate's executable lies (action.yml): a child that
	// replaced it would run as the next side's supervisor.
	"TAILGATE_BIN",
}

// credentialPrefixes: INPUT_* are an action's inputs (the token among
// them); ACTIONS_* are the runtime's tokens and service URLs
// (ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN,
// ACTIONS_CACHE_URL, ACTIONS_RUNTIME_URL, ACTIONS_RESULTS_URL, …).
var credentialPrefixes = []string{"INPUT_", "ACTIONS_"}

// IsCredential reports whether children lose the variable name by default.
func IsCredential(name string) bool {
	upper := strings.ToUpper(name)
	if slices.Contains(credentialNames, upper) {
		return true
	}
	for _, p := range credentialPrefixes {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	return false
}

// OwnSupervisor is the supervisor's command line: tailgate's executable
// and its hidden subcommand sub. On Linux that is /proc/self/exe, which
// the kernel resolves in the forked child, still tailgate's image: the
// executable tailgate started as, whatever a child later puts at its path
// (the file TAILGATE_BIN names). Nil when tailgate cannot find itself.
func OwnSupervisor(sub string) []string {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return []string{"/proc/self/exe", sub}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, sub}
}
