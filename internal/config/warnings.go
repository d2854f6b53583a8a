package config

import "fmt"

// setupWorkersWarnAbove is the number of open-model workers beyond which
// per-worker setup steps are worth a warning: each worker runs them, so a
// login in setup.vu happens max_inflight times before every open phase.
const setupWorkersWarnAbove = 32

// Warnings are what a valid benchmark does that its author may not expect,
// said before anything runs (tailgate validate, and at the start of every
// benchmark).
func (c *Config) Warnings() []string {
	var w []string
	if c.Load.Engine == EngineCommand || c.Setup == nil || len(c.Setup.VU) == 0 {
		return w
	}
	for _, ph := range c.Load.RunPhases() {
		l := ph.Load
		if l.Model != ModelOpen || l.MaxInflight <= setupWorkersWarnAbove {
			continue
		}
		where, key := "the open model", "load.max_inflight"
		if ph.Name != "" {
			where, key = "phase "+ph.Name, "its max_inflight"
		}
		w = append(w, fmt.Sprintf("setup.vu runs once on each of %s's %d workers (max_inflight): %d setups (logins) before every run of it, unmeasured but slow and loading the service; set %s near what the rate needs (rate × the slowest iteration, e.g. %d), or log in once in setup.run",
			where, l.MaxInflight, l.MaxInflight, key, setupWorkersWarnAbove))
	}
	return w
}
