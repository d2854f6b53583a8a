package config

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/tailgate-ci/tailgate/internal/stats"
)

func validateAB(cfg *Config, c *collector) {
	ab := cfg.AB
	oneOf(c, "ab.order", ab.Order, "invalid order %q: expected %s or %s", OrderABBA, OrderRandom)
	oneOf(c, "ab.restart", ab.Restart, "invalid restart %q: expected %s (both sides started afresh for every pair) or %s", RestartEveryPair, RestartNever)
	oneOf(c, "ab.phases", ab.Phases, "invalid phases %q: expected %s (a phase is left out of later blocks once its gated metrics have decided) or %s (every phase in every block)", PhasesUndecided, PhasesAll)
	oneOf(c, "ab.unsealed", ab.Unsealed, "invalid value %q: expected %s (the default: a job whose sides cannot be sealed off from each other fails) or %s (such a job runs unsealed, and its report says so)", UnsealedRefuse, UnsealedAllow)
	oneOf(c, "ab.root_sockets", ab.RootSockets, "invalid value %q: expected %s (the default: no side reaches the docker, containerd or podman socket, which grant root) or %s (both sides reach them)", RootSocketsHide, UnsealedAllow)
	for i, p := range ab.Procedure {
		clean := filepath.ToSlash(filepath.Clean(p))
		c.addIf(p == "" || filepath.IsAbs(p) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../"), joinIndex("ab.procedure", i), "%q is not a directory or file inside the tree: give a path relative to the directory tailgate runs in, such as scripts/, other than that directory itself", p)
	}
	c.addIf(ab.Windows < 0 || ab.Windows > MaxWindows, "ab.windows", "must be between 1 and %d windows of each side per phase in a block, or 0 for as many as fill load.duration (more where lifecycles are long), got %d", MaxWindows, ab.Windows)
	c.addIf(c.given("ab.window") && ab.Window <= 0, "ab.window", "must be longer than 0, got %s", ab.Window)
	c.addIf(ab.WindowWarmup < 0, "ab.window_warmup", "must not be negative, got %s", ab.WindowWarmup)
	c.addIf(ab.MinBlocks < stats.SeqFirstLookMin, "ab.min_blocks", "must be at least %d (the spread of the blocks needs two degrees of freedom), got %d", stats.SeqFirstLookMin, ab.MinBlocks)
	c.addIf(ab.MaxBlocks < ab.MinBlocks || ab.MaxBlocks > stats.SeqBudgetMax, "ab.max_blocks", "must be between the first look, ab.min_blocks (%d), and %d, got %d", ab.MinBlocks, stats.SeqBudgetMax, ab.MaxBlocks)
	validateSide(&ab.Base, "ab.base", cfg.Target, c)
	validateSide(&ab.Head, "ab.head", cfg.Target, c)
	validateUnusedTopKeys(cfg, c)
	base, head := ab.Base.TargetOr(cfg.Target), ab.Head.TargetOr(cfg.Target)
	oneAddress := base.URL == head.URL && !base.UsesPort()
	c.addIf(ab.Restart == RestartNever && !ab.Base.IsEmpty() && oneAddress, "ab.restart", "with restart: never both sides run at once, and both would use %s: write %s in the URL and start command, or give each side its own url", base.URL, PortPlaceholder)
}

// validateSide checks a side's own target, and that tailgate can build its ref.
func validateSide(s *ABSide, path string, top Target, c *collector) {
	validateCheck(s.Verify, path+".verify", c)
	named := ""
	if i := slices.IndexFunc(sideTargetKeys, func(k string) bool { return c.given(path + "." + k) }); i >= 0 {
		named = sideTargetKeys[i]
	}
	if s.HasTarget() || named != "" {
		if !s.HasTarget() {
			url := cmp.Or(top.URL, "http://127.0.0.1:8080")
			// At the key that was named: without url the side would be
			// resolved to target alone, and that key silently ignored.
			c.addAt(path+".url", c.spots[path+"."+named].key, "required: a side that names %s is a target of its own, with its own url (it takes from target every key it does not set but %s; without url, %s.%s would be ignored): give it its url (e.g. %s)",
				named, strings.Join(SideOwnKeys, ", "), path, named, url)
		}
		validateTarget(&s.Target, path, c)
		c.addKeyIf(s.HasTarget() && s.Remote && len(top.Measure) > 0 && !c.given(path+".measure"), path+".remote", "a side takes target.measure unless it sets its own, and the processes beside a remote side are on another machine: write %s.measure: [] (measure none)", path)
	}
	if s.Ref == "" {
		c.addIf(c.given(path+".ref"), path+".ref", "must not be empty: a git commit, branch or tag, e.g. origin/main")
		return
	}
	msg := refProblem(s.Ref)
	c.addIf(msg != "", path+".ref", "%s", msg)
	switch t := s.TargetOr(top); {
	case t.PIDFile != "":
		c.addKey(path+".pid_file", "a side built from ref is started by tailgate, which knows its pid: remove pid_file")
	case t.Start == nil && !c.flagged[path] && !c.flagged["target"]:
		key := "target.start"
		if s.HasTarget() {
			key = path + ".start"
		}
		c.add(key, "required with %s.ref: the command that starts the build tailgate makes, run in its worktree", path)
	}
}

// sideTargetKeys are the keys of a target besides url that an A/B side may
// name: any of them makes the side a target of its own.
var sideTargetKeys = []string{"start", "ready", "pid_file", "remote", "tls", "measure", "counters"}

// refProblem says why a ref cannot name a commit for git, or "".
func refProblem(ref string) string {
	switch {
	case strings.HasPrefix(ref, "-"):
		return "a ref cannot start with '-' (git would read it as an option)"
	case strings.Contains(ref, ".."), strings.Contains(ref, ":"):
		return "a ref names one commit: no ranges (..) or paths (:)"
	case strings.ContainsFunc(ref, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return "a ref cannot hold spaces or control characters"
	}
	return ""
}

// oneOf reports value at key unless it is a or b; format reads value, a, b.
func oneOf(c *collector, key, value, format, a, b string) {
	c.addIf(value != a && value != b, key, format, value, a, b)
}

func validateBuild(b *Build, c *collector) {
	c.addIf(b.Command.IsZero(), "build.command", "required: the command that builds the service in its tree, e.g. [go, build, -o, bin/server, ./cmd/server]")
	c.addIf(filepath.IsAbs(b.Dir) || b.Dir == ".." || strings.HasPrefix(filepath.ToSlash(b.Dir), "../"), "build.dir", "must be a directory inside the tree, relative to it, got %q", b.Dir)
	checkPositive(b.Timeout, "build.timeout", c)
}

func (b Build) DirIn(tree string) string { return filepath.Join(tree, b.Dir) }
