package config

import "fmt"

// setupWorkersWarnAbove is the number of open-model logins beyond which
// setup steps are worth a warning: workers share a login only where their
// setup.vu steps would send the same requests, so a login that reads
// {{vu}} happens max_inflight times before every open phase.
const setupWorkersWarnAbove = 32

// Warnings are what a valid benchmark does that its author may not expect,
// said before anything runs (tailgate validate, and at the start of every
// benchmark). logins says how many logins an open phase of so many
// workers makes (scenario.Plan.Logins); nil: one per worker.
func (c *Config) Warnings(logins func(workers int) int) []string {
	if logins == nil {
		logins = func(workers int) int { return workers }
	}
	var w []string
	if c.Load.Engine == EngineCommand || c.Setup == nil || len(c.Setup.VU) == 0 {
		return w
	}
	for _, ph := range c.Load.RunPhases() {
		l := ph.Load
		n := logins(l.MaxInflight)
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
