package config

import (
	"cmp"
	"strings"
)

// validateUnusedTopKeys refuses target.start, pid_file or tls where tailgate
// ab uses them for neither side: with both sides targets of their own
// (SideOwnKeys), a local side that starts and samples nothing of its own, or
// an https side without its own tls, would silently run without them (run
// and check still use the top-level ones). url and remote need no rule: a
// side's url is its own, and a remote side without remote is refused at it.
func validateUnusedTopKeys(cfg *Config, c *collector) {
	ab := cfg.AB
	if !ab.Base.HasTarget() || !ab.Head.HasTarget() {
		return
	}
	top := cfg.Target
	var unstarted, untrusted []string
	for _, s := range []struct {
		path string
		t    Target
	}{{"ab.base", ab.Base.Target}, {"ab.head", ab.Head.Target}} {
		if !s.t.Remote && s.t.Start == nil && s.t.PIDFile == "" {
			unstarted = append(unstarted, s.path)
		}
		if s.t.TLS == nil && strings.HasPrefix(s.t.URL, "https:") {
			untrusted = append(untrusted, s.path)
		}
	}
	both := "ab.base and ab.head are targets of their own (each sets url), and a side of its own takes no %s from target"
	if key := "target.start"; len(unstarted) > 0 && (top.Start != nil || top.PIDFile != "") {
		if top.Start == nil {
			key = "target.pid_file"
		}
		c.addKey(key, "tailgate ab uses it for no side: "+both+", so %s would be neither started nor sampled: write %s (start: *start reuses this one through a YAML anchor), or %s for a service started elsewhere",
			"start or pid_file", strings.Join(unstarted, " and "), sideKeys(unstarted, "start"), sideKeys(unstarted, "pid_file"))
	}
	if len(untrusted) > 0 && top.TLS != nil {
		c.addKey("target.tls", "tailgate ab uses it for no side: "+both+", so %s would trust only the system's CAs: write %s (tls: *tls reuses this one through a YAML anchor)",
			"tls", strings.Join(untrusted, " and "), sideKeys(untrusted, "tls"))
	}
}

// sideKeys names key under each side: "ab.base.start and ab.head.start".
func sideKeys(sides []string, key string) string {
	return strings.Join(sides, "."+key+" and ") + "." + key
}

// HeadAlone makes ab.head's target the top-level one of a file whose only
// targets are the A/B sides' own, and says whether it did: tailgate run
// (README's smoke step) runs that side alone, as tailgate ab starts it,
// its own dataset check included. Not a head built from a ref: run
// builds the working tree.
func (cfg *Config) HeadAlone() bool {
	if cfg.Target.URL != "" || cfg.AB == nil || !cfg.AB.Head.HasTarget() || cfg.AB.Head.Ref != "" {
		return false
	}
	cfg.Target = cfg.AB.Head.TargetOr(cfg.Target)
	cfg.Dataset.Verify = cmp.Or(cfg.AB.Head.Verify, cfg.Dataset.Verify)
	return true
}

// NoTopTarget is the error of a command that runs the top-level target
// (check, baseline record, calibrate) on a file whose only targets
// are the A/B sides' own: without it the run waited for a url of "".
func (cfg *Config) NoTopTarget() error {
	if cfg.Target.URL != "" {
		return nil
	}
	return &Error{Problems: []Problem{{File: cfg.Path, Key: "target.url", Msg: "required to run the benchmark alone: ab.base and ab.head are targets of their own, which tailgate ab runs (tailgate run, ab.head's alone); give target a url (and start)"}}}
}
