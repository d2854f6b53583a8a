package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// setupWorkersWarnAbove is the number of open-model logins (max_inflight
// of them where setup.vu reads {{vu}}) beyond which setup is worth a
// warning.
const setupWorkersWarnAbove = 32

// Warnings are what a valid benchmark does that its author may not
// expect, said before anything runs; logins is how many logins an open
// phase of so many workers makes (scenario.Plan.Logins; nil: one each).
func (c *Config) Warnings(logins func(workers int) int) []string {
	if logins == nil {
		logins = func(workers int) int { return workers }
	}
	w := c.engineWarnings()
	if c.Load.Engine == EngineCommand || c.Setup == nil || len(c.Setup.VU) == 0 {
		return w
	}
	for _, ph := range c.Load.RunPhases() {
		l, n := ph.Load, logins(ph.Load.MaxInflight)
		if l.Model != ModelOpen || n <= setupWorkersWarnAbove {
			continue
		}
		where, key := "the open model", "load.max_inflight"
		if ph.Name != "" {
			where, key = "phase "+ph.Name, "its max_inflight"
		}
		w = append(w, fmt.Sprintf("setup.vu runs %d times for %s's %d workers (max_inflight): %d setups (logins) before every run of it, unmeasured but slow and loading the service (workers share a login only where their setup.vu steps read neither {{vu}} nor more feed rows); set %s near what the rate needs (rate × the slowest iteration, e.g. %d), or log in once in setup.run",
			n, where, l.MaxInflight, n, key, setupWorkersWarnAbove))
	}
	return w
}

// engines are the tools of container engines, whose sockets grant root:
// an A/B job hides them from its sides unless ab.root_sockets: allow.
var engines = []string{"docker", "docker-compose", "podman", "podman-compose", "nerdctl", "ctr"}

// engineWarnings say which commands run a container engine's tool, which
// cannot reach its engine in a sealed A/B job.
func (c *Config) engineWarnings() []string {
	if c.AB != nil && c.AB.RootSockets == UnsealedAllow {
		return nil
	}
	var w []string
	check := func(key string, cmd *Command) {
		if cmd == nil {
			return
		}
		words := cmd.Args
		if len(words) == 0 {
			words = strings.FieldsFunc(cmd.Shell, func(r rune) bool { return strings.ContainsRune(" \t\n;|&()`\"'", r) })
		}
		if i := slices.IndexFunc(words, func(w string) bool { return slices.Contains(engines, filepath.Base(w)) }); i >= 0 {
			w = append(w, fmt.Sprintf("%s runs %s: in an A/B job (mode ab) the sides cannot reach the container engine's socket, which grants root to whoever reaches it, so the command fails there; where both sides' code is trusted, set ab.root_sockets: allow in the base commit's config", key, filepath.Base(words[i])))
		}
	}
	target := func(key string, t *Target) { // a side that is a target of its own runs its own commands
		if t.Start != nil {
			check(key+".start.command", &t.Start.Command)
		}
		for _, ct := range t.Counters {
			check(key+".counters."+ct.Name+".command", ct.Command)
		}
	}
	check("load.command", c.Load.Command)
	if c.Build != nil {
		check("build.command", &c.Build.Command)
	}
	target("target", &c.Target)
	if r := c.Dataset.Reset; r != nil {
		check("dataset.reset.command", r.Command)
	}
	if v := c.Dataset.Verify; v != nil {
		check("dataset.verify.command", v.Command)
	}
	if c.AB != nil {
		target("ab.base", &c.AB.Base.Target)
		target("ab.head", &c.AB.Head.Target)
	}
	return w
}
