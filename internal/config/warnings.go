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
	if c.AB != nil && c.AB.Design != "" {
		w = append(w, fmt.Sprintf("ab.design is retired and changes nothing (%q here): every A/B job follows one rule, phase by phase: an open phase loads both sides at once; a closed one does too on a quiet machine and alternates beside a busy one; every phase alternates where the sides share a measured process; whole runs, one side at a time, only where blocks cannot run (a load tool, one fixed address). Remove the key", c.AB.Design))
	}
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
