package config

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/printable"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func validate(cfg *Config, c *collector) {
	validateName(cfg, c)
	// The top-level target is used always without ab, and with ab when a
	// side names no target of its own.
	if cfg.AB == nil || !cfg.AB.Base.HasTarget() || !cfg.AB.Head.HasTarget() || c.given("target") {
		validateTarget(&cfg.Target, "target", c)
	}
	if cfg.AB != nil {
		validateAB(cfg, c)
	}
	if b := cfg.Build; b != nil {
		validateBuild(b, c)
	}
	if cfg.Dataset.Reset != nil {
		validateAction(cfg.Dataset.Reset, "dataset.reset", c)
	}
	validateCheck(cfg.Dataset.Verify, "dataset.verify", c)
	if cfg.Drain != nil {
		validateDrain(cfg.Drain, c)
	}
	switch cfg.Load.Engine {
	case EngineTailgate:
		validateLoad(&cfg.Load, c)
		validateScenarios(cfg.Scenarios, c)
	case EngineCommand:
		validateCommandLoad(&cfg.Load, c)
	default:
		c.add("load.engine", "unknown engine %q: expected tailgate (the built-in generator) or command (your load tool)", cfg.Load.Engine)
	}
	c.addIf(cfg.Load.Runs < 1, "load.runs", "must be at least 1, got %d", cfg.Load.Runs)
	p := cfg.Load.FailedPercentAllowed()
	c.addIf(p < 0 || p > 100 || p != p, "load.max_failed_percent", "must be a percentage from 0 to 100 (100 accepts any run), got %v", p)
	validateSetup(cfg, c)
	validateFeed(cfg, c)
	validateGate(&cfg.Gate, c)
	validateFootprintKeys(cfg, c)
	seen := map[string]bool{}
	for i, n := range cfg.PassEnv {
		switch key := joinIndex("pass_env", i); {
		case !envName.MatchString(n):
			c.add(key, "invalid variable name %q: expected letters, digits and _, not starting with a digit, e.g. GITHUB_TOKEN", n)
		case seen[n]:
			c.add(key, "%s is listed twice", n)
		}
		seen[n] = true
	}
}

// envName is a variable name a shell can set (pass_env).
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// namePattern keeps names safe inside file paths (baselines/<name>.json).
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// maxPhaseName bounds a phase name: a step of a phase is named "step
// phase" in the reports, within their bound of 2·printable.MaxName.
const maxPhaseName = 40

func validateName(cfg *Config, c *collector) {
	from := ""
	if !c.given("name") {
		from = " (taken from the file name; set name: to choose another)"
	}
	switch err := printable.Long(cfg.Name, printable.MaxName); {
	case err != nil:
		c.add("name", "the name %.40q… %v", cfg.Name, err)
	case !namePattern.MatchString(cfg.Name):
		c.add("name", "invalid name %q%s: use letters, digits, '.', '_' and '-', starting with a letter or digit", cfg.Name, from)
	}
}

func validateTarget(t *Target, key string, c *collector) {
	validateTargetURL(t, key, c)
	switch {
	case t.UsesPort() && t.Start == nil:
		c.add(key+".url", "%s needs %s.start: tailgate fills it with a free port when it starts the target", PortPlaceholder, key)
	case t.URL != "" && t.startUsesPort() && !t.UsesPort():
		c.add(key+".start", "the start command uses %s but %s.url does not: the target would listen where tailgate does not send the load", PortPlaceholder, key)
	}
	c.addIf(t.Start != nil && t.Start.Command.IsZero(), key+".start.command", "required: the command that starts the service, e.g. [./server, --port, \"8080\"]")
	c.addKeyIf(t.Start != nil && t.PIDFile != "", key+".pid_file", "pid_file is for a target started elsewhere; with start, tailgate knows the pid itself: remove one of them")
	if r := t.Ready; r != nil {
		checkPath(r.Path, key+".ready.path", false, c)
		checkStatus(r.Status, key+".ready.status", c)
		checkPositive(r.Timeout, key+".ready.timeout", c)
		checkPositive(r.Interval, key+".ready.interval", c)
	}
	validateTLS(t, key, c)
	validateFootprint(t, key, c)
}

// validateTargetURL requires an http(s) URL on loopback, unless remote: true.
func validateTargetURL(t *Target, key string, c *collector) {
	urlKey := key + ".url"
	if t.URL == "" { // nothing where said already, with what to do (add)
		c.add(urlKey, "required: the base URL of the service under test, e.g. http://127.0.0.1:8080")
		return
	}
	u, err := url.Parse(strings.ReplaceAll(t.URL, PortPlaceholder, "1")) // {{port}}: filled at every start
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.add(urlKey, "invalid URL %q: expected http://host:port or https://host:port", t.URL)
		return
	}
	local := IsLoopback(u.Hostname())
	switch {
	case !local && !t.Remote && !c.flagged[key+".remote"]: // a remote: that did not read is the cause
		c.add(urlKey, "host %q is not this machine: tailgate only sends load to a loopback address (127.0.0.0/8, ::1 or localhost), where CI starts the service under test, unless the target says remote: true (%s.remote; the network is then part of what is measured)", u.Hostname(), key)
	case local && t.Remote:
		c.add(key+".remote", "the url's host %q is this machine: remove remote: true (it is for a service reached over the network)", u.Hostname())
	case t.Remote: // a service on another machine is neither started nor sampled
		c.addKeyIf(t.Start != nil, key+".start", "a remote target cannot be started by tailgate: start runs the service on this machine; remove start, or remote: true and use a loopback url")
		c.addKeyIf(t.PIDFile != "", key+".pid_file", "a remote target's process cannot be sampled from this machine: remove pid_file (CPU and memory are not measured for a remote target)")
	}
}

// IsLoopback: host is this machine (localhost, 127.0.0.0/8 or ::1).
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func validateLoad(l *Load, c *collector) {
	unused(c, "only used with engine: command", "load.command", "load.output", "load.format", "load.command_timeout")
	if c.given("load.phases") {
		validatePhases(l, c)
	} else {
		validateModel(*l, "load", c)
	}
	checkPositive(l.Duration, "load.duration", c)
	checkPositive(l.RequestTimeout, "load.request_timeout", c)
	c.addIf(!slices.Contains([]string{"", ClientFast, ClientNetHTTP}, l.Client), "load.client", "unknown client %q: expected fast (the default) or nethttp (Go's net/http)", l.Client)
}

// validateCommandLoad checks engine: command, where the user's tool makes
// the load: the built-in generator's keys have no meaning there.
func validateCommandLoad(l *Load, c *collector) {
	c.addIf(l.Command == nil || l.Command.IsZero(), "load.command", "required with engine: command: the load tool's command, e.g. k6 run --summary-export \"$TAILGATE_OUTPUT\" script.js")
	c.addIf(l.Output == "", "load.output", "required with engine: command: the result file the command writes, e.g. out/summary.json")
	checkPositive(l.CommandTimeout, "load.command_timeout", c)
	unused(c, "not used with engine: command: the load tool's own script sets it", "load.model", "load.rate", "load.ramp_from", "load.ramp", "load.max_inflight", "load.vus", "load.think", "load.warmup", "load.duration", "load.request_timeout", "load.client", "load.cookies", "load.phases", "scenarios")
}

// modelKeys are the keys that say how work is offered: at the top of the
// load section, or in each phase.
var modelKeys = []string{"model", "rate", "ramp_from", "ramp", "max_inflight", "vus", "think"}

// validateModel checks the model keys at path ("load" or "load.phases[i]").
func validateModel(l Load, path string, c *collector) {
	notFor := func(model string, keys ...string) {
		for _, k := range keys {
			unused(c, fmt.Sprintf("not used by the %s model: remove it or set %s.model", model, path), path+"."+k)
		}
	}
	switch l.Model {
	case ModelOpen:
		c.addIf(l.Rate.IsZero(), path+".rate", "required with the open model: iterations started per second, e.g. 100/s")
		c.addIf(l.MaxInflight < 1, path+".max_inflight", "must be at least 1, got %d", l.MaxInflight)
		switch {
		case l.RampFrom != nil && l.Ramp <= 0:
			c.add(path+".ramp", "required with ramp_from: how long the rate takes to rise, e.g. 5s")
		case l.RampFrom == nil && c.given(path+".ramp"):
			c.addKey(path+".ramp", "ramp needs ramp_from: the rate the ramp starts at, e.g. 10/s")
		}
		notFor("open", "vus", "think")
	case ModelClosed:
		c.addIf(l.VUs < 1, path+".vus", "required with the closed model: at least 1 virtual user, got %d", l.VUs)
		notFor("closed", "rate", "ramp_from", "ramp", "max_inflight")
	default:
		c.add(path+".model", "unknown model %q: expected open (a fixed arrival rate) or closed (a fixed number of VUs)", l.Model)
	}
}

// unused reports each of keys the file sets, with msg.
func unused(c *collector, msg string, keys ...string) {
	for _, k := range keys {
		c.addKeyIf(c.given(k), k, "%s", msg)
	}
}

// validatePhases checks load.phases: at most one phase of each model (so
// that one phase measures each metric), no model keys at the top.
func validatePhases(l *Load, c *collector) {
	if len(l.Phases) == 0 {
		c.add("load.phases", "lists no phase: leave it out for a run of one phase, or give e.g. [{model: closed, vus: 8}, {model: open, rate: 30/s}]")
		return
	}
	for _, k := range modelKeys {
		unused(c, "with load.phases, set it in each phase", "load."+k)
	}
	names, models := map[string]int{}, map[string]int{}
	for i, p := range l.Phases {
		path := joinIndex("load.phases", i)
		validateModel(p.load(*l), path, c)
		checkPositive(p.Duration, path+".duration", c)
		c.addIf(p.Warmup < 0, path+".warmup", "must not be negative, got %s", p.Warmup)
		switch j, dup := names[p.Name]; {
		case len(p.Name) > maxPhaseName:
			c.add(path+".name", "phase name %.40q… is %d characters long: use at most %d", p.Name, len(p.Name), maxPhaseName)
		case !namePattern.MatchString(p.Name):
			c.add(path+".name", "invalid phase name %q: use letters, digits, '.', '_' and '-'", p.Name)
		case dup:
			c.add(path+".name", "phase name %q is already used by load.phases[%d]", p.Name, j)
		}
		names[p.Name] = i
		j, dup := models[p.Model]
		c.addIf(dup, path+".model", "load.phases[%d] is already %s: a run has at most one closed phase (its iterations/s is the throughput) and one open phase (its latency and dropped work)", j, p.Model)
		models[p.Model] = i
	}
}

func validateGate(g *Gate, c *collector) {
	c.addIf(g.Baseline == "", "gate.baseline", "must not be empty: the baseline file, e.g. baselines/api.json")
	c.addIf(c.given("gate.window") && g.Window < 2, "gate.window", "must be at least 2 samples, got %d", g.Window)
	c.addIf(c.given("gate.alpha") && !(g.Alpha > 0 && g.Alpha <= 0.5), "gate.alpha", "must be in (0, 0.5], got %g; 0.05 is usual", g.Alpha)
	c.addIf(c.given("gate.metrics") && len(g.Metrics) == 0, "gate.metrics", "lists no metric: leave it out for the defaults (docs/config.md#gate)")
	seen := map[string]bool{}
	for i, m := range g.Metrics {
		switch _, ok := result.Lookup(m); {
		case !ok:
			c.add(joinIndex("gate.metrics", i), "unknown metric %q: expected one of %s", m, metricKeys())
		case seen[m]:
			c.add(joinIndex("gate.metrics", i), "metric %q is listed twice", m)
		}
		seen[m] = true
	}
	validateMetricValues(g.Floors, "gate.floors", c)
	validateMetricValues(g.MinEffect, "gate.min_effect", c)
	c.addIf(c.given("gate.history.jobs") && g.History.Jobs < 2, "gate.history.jobs", "must be at least 2 jobs, got %d", g.History.Jobs)
	for i, ref := range g.Creep.Against {
		err := checkCreepRef(ref)
		c.addIf(err != nil, joinIndex("gate.creep.against", i), "%v", err)
	}
}

// checkCreepRef accepts window_start, or tag:GLOB with a glob path.Match takes.
func checkCreepRef(ref string) error {
	glob, isTag := strings.CutPrefix(ref, CreepTagPrefix)
	switch {
	case ref == CreepWindowStart:
		return nil
	case !isTag:
		return fmt.Errorf("%q is neither %s nor %sGLOB (e.g. tag:v*)", ref, CreepWindowStart, CreepTagPrefix)
	case glob == "" || strings.HasPrefix(glob, "-") || strings.ContainsAny(glob, " \t\n:^~\\"):
		return fmt.Errorf("%q: the glob after tag: must name tags, e.g. tag:v*", ref)
	}
	if _, err := path.Match(glob, ""); err != nil {
		return fmt.Errorf("%q: %v", ref, err)
	}
	return nil
}

func validateMetricValues(values map[string]float64, section string, c *collector) {
	for _, m := range slices.Sorted(maps.Keys(values)) {
		key := joinKey(section, m)
		if _, ok := result.Lookup(m); !ok {
			c.addKey(key, "unknown metric %q: expected one of %s", m, metricKeys())
		} else if values[m] < 0 {
			c.add(key, "cannot be negative, got %g", values[m])
		}
	}
}

func metricKeys() string {
	keys := make([]string, len(result.Metrics))
	for i, m := range result.Metrics {
		keys[i] = m.Key
	}
	return strings.Join(keys, ", ")
}

func checkPositive(d Duration, key string, c *collector) {
	c.addIf(d <= 0, key, "must be longer than 0, got %s", d)
}

func checkStatus(status int, key string, c *collector) {
	c.addIf(status < 100 || status > 599, key, "invalid HTTP status %d: expected 100–599", status)
}
