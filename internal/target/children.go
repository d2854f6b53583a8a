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
	// SideDirEnv is the absolute path of the tree the target is built and
	// started from: in A/B the side's own, else tailgate's working directory.
	SideDirEnv = "TAILGATE_SIDE_DIR"
)

// Children is how tailgate makes its child processes (the target, dataset,
// load tool and build commands): each gets the environment ChildEnv builds
// from the one tailgate was given (never tailgate's own, which only the
// CLI reads), and each ends when tailgate ends, even by SIGKILL.
type Children struct {
	// Environ is the environment tailgate was given ("NAME=value"),
	// passed on without credentials. Nil passes none: a caller that
	// forgets it leaks nothing.
	Environ []string
	// PassEnv names credentials that children get anyway (config pass_env).
	PassEnv []string
	// Supervisor is the command line that runs Supervise, under which every
	// child starts, so that when tailgate dies, even by SIGKILL, the
	// child's whole process group ends. Empty: children start directly,
	// with a parent-death signal on Linux, which reaches the direct child
	// only (not what a `sh -c` forks).
	Supervisor []string
	// Seal, when set, is what this side's children may see: the
	// supervisor (required) enters its namespaces and mounts first.
	Seal *seal.Spec
	// Dir is the working directory of a child whose caller names none
	// (an A/B side's tree); "" is tailgate's own.
	Dir string

	extra []string // "NAME=value" set for this child, after Environ
}

// With returns c with variables ("NAME=value") added for the child; they
// override Environ's.
func (c Children) With(vars ...string) Children {
	c.extra = append(slices.Clip(c.extra), vars...)
	return c
}

func (c Children) Env() []string { return ChildEnv(c.Environ, c.PassEnv, c.extra) }

// ChildEnv is parent without the credentials (IsCredential) that pass does
// not name, then extra; a name set twice keeps its last value, once.
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
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" && (!IsCredential(name) || slices.Contains(pass, name)) {
			add(kv)
		}
	}
	for _, kv := range extra {
		add(kv)
	}
	return out
}

// credentialNames carry a token or a capability of the job, and so reach
// no child unless the config passes them on.
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
	return slices.Contains(credentialNames, upper) || slices.ContainsFunc(credentialPrefixes, func(p string) bool { return strings.HasPrefix(upper, p) })
}

// OwnSupervisor is tailgate's executable and its hidden subcommand sub: on
// Linux /proc/self/exe, which the forked child resolves to tailgate's own
// image whatever a child later puts at its path (TAILGATE_BIN). Nil when
// tailgate cannot find itself.
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
