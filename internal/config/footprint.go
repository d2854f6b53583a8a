package config

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// MeasurePart is one more part of the request path (a database, a cache)
// accounted beside the target: one of PIDFile, Process and Cgroup.
type MeasurePart struct {
	Name string `yaml:"name"` // in metric keys: part.<name>.…
	// PIDFile's first line is the pid of the main process (postmaster.pid
	// qualifies), accounted with its descendants.
	PIDFile string `yaml:"pid_file"`
	// Process is rescanned at every sample, so processes born in the
	// window count.
	Process *ProcessMatch `yaml:"process"`
	Cgroup  string        `yaml:"cgroup"` // a cgroup v2 directory
}

// ProcessMatch selects processes by their exact command name (at most 15
// characters) or a regular expression over the command line.
type ProcessMatch struct {
	Comm      string         `yaml:"comm"`
	Cmdline   string         `yaml:"cmdline"`
	CmdlineRE *regexp.Regexp `yaml:"-"` // Cmdline compiled by validation
}

// CounterSource is where work counters are read around each measured
// window; each one's growth per iteration is counter.<source>.<counter>.
type CounterSource struct {
	Name       string            `yaml:"name"`
	Prometheus *PrometheusSource `yaml:"prometheus"`
	// Command prints a JSON object whose top-level numbers are counters.
	Command *Command `yaml:"command"`
	// PGStatStatements reads PGStatCounters of one database with psql, and
	// each statement's own (the report's "which statements changed").
	PGStatStatements *PGStatSource `yaml:"pg_stat_statements"`
	Gate             []string      `yaml:"gate"` // gated by default when gate.metrics is not given
	Timeout          Duration      `yaml:"timeout"`
}

// PrometheusSource is a text exposition endpoint: Path on the target's
// URL, or a loopback URL. A metric of several label sets is their sum.
type PrometheusSource struct {
	Path    string   `yaml:"path"`
	URL     string   `yaml:"url"`
	Metrics []string `yaml:"metrics"`
}

// PGStatSource is a PostgreSQL database whose statements are counted
// (e.g. app_${TAILGATE_SIDE:-run}, which the shell expands), through
// Connect, psql's connection string (default: psql's environment).
type PGStatSource struct {
	Database string `yaml:"database"`
	Connect  string `yaml:"connect"`
}

// PGStatCounters are what a pg_stat_statements source reads over the
// database's statements (blocks: shared, hit or read; blocks_read: from
// outside the buffer cache; sessions: connections opened).
var PGStatCounters = []string{"calls", "rows", "blocks", "blocks_read", "sessions"}

// pgDatabase is a database name, ${TAILGATE_SIDE} or
// ${TAILGATE_SIDE:-default} in it (nothing else may reach the shell).
var pgDatabase = regexp.MustCompile(`^[A-Za-z0-9_]*(\$\{TAILGATE_SIDE(:-[A-Za-z0-9_]+)?\}[A-Za-z0-9_]*)?$`)

// DefaultCounterTimeout bounds one read of a counter source.
const DefaultCounterTimeout = Duration(10e9)

const TargetPart = result.TargetPart

// partName is a part's or source's name (in metric keys); CounterName a
// counter's (a Prometheus metric name, a JSON member).
var (
	partName    = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	CounterName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,127}$`)
)

// GatedByDefault are the footprint metrics gated when gate.metrics is not
// given: the whole path's CPU per iteration, and each source's gate.
func (t *Target) GatedByDefault() []string {
	var out []string
	if len(t.Measure) > 0 {
		out = append(out, result.PathCPUPerIteration)
	}
	for _, s := range t.Counters {
		for _, g := range s.Gate {
			out = append(out, result.CounterKey(s.Name, g))
		}
	}
	return out
}

func validateFootprint(t *Target, key string, c *collector) {
	names := map[string]bool{}
	for i := range t.Measure {
		validatePart(&t.Measure[i], joinIndex(key+".measure", i), names, c)
	}
	c.addKeyIf(t.Remote && len(t.Measure) > 0, key+".measure", "the processes beside a remote target are on another machine: remove measure")
	sources := map[string]bool{}
	for i := range t.Counters {
		validateCounterSource(&t.Counters[i], joinIndex(key+".counters", i), sources, c)
	}
}

func validatePart(p *MeasurePart, key string, seen map[string]bool, c *collector) {
	switch {
	case !partName.MatchString(p.Name):
		c.add(key+".name", "%q is not a part name: lower-case letters, digits and _, starting with a letter (it becomes part of a metric key, part.<name>.cpu_ms_per_iteration)", p.Name)
	case p.Name == TargetPart:
		c.add(key+".name", "%q is the target's own name in the metrics: name the part after what it is (postgres, redis)", p.Name)
	case seen[p.Name]:
		c.add(key+".name", "part %q is listed twice", p.Name)
	}
	seen[p.Name] = true
	c.addKeyIf(!exactlyOne(p.PIDFile != "", p.Process != nil, p.Cgroup != ""), key, "give exactly one of pid_file (a process and its descendants), process ({comm: postgres} or {cmdline: regexp}) or cgroup (a cgroup v2 directory)")
	switch m := p.Process; {
	case m == nil:
	case (m.Comm == "") == (m.Cmdline == ""):
		c.addKey(key+".process", "give exactly one of comm (the exact command name) or cmdline (a regular expression)")
	case len(m.Comm) > 15:
		c.add(key+".process.comm", "%q is longer than the 15 characters the kernel keeps of a command name: use cmdline", m.Comm)
	case m.Cmdline != "":
		re, err := regexp.Compile(m.Cmdline)
		c.addIf(err != nil, key+".process.cmdline", "not a regular expression: %v", err)
		m.CmdlineRE = re
	}
	c.addIf(p.Cgroup != "" && !strings.HasPrefix(p.Cgroup, "/"), key+".cgroup", "%q: give the cgroup's absolute directory, e.g. /sys/fs/cgroup/system.slice/postgresql.service", p.Cgroup)
}

func validateCounterSource(s *CounterSource, key string, seen map[string]bool, c *collector) {
	switch {
	case !partName.MatchString(s.Name):
		c.add(key+".name", "%q is not a source name: lower-case letters, digits and _, starting with a letter (it becomes part of a metric key, counter.<name>.<counter>)", s.Name)
	case seen[s.Name]:
		c.add(key+".name", "counter source %q is listed twice", s.Name)
	}
	seen[s.Name] = true
	c.addKeyIf(!exactlyOne(s.Prometheus != nil, s.Command != nil, s.PGStatStatements != nil), key, "give exactly one of prometheus ({path: /metrics, metrics: [...]}), command (printing a JSON object of counters) or pg_stat_statements ({database: app})")
	if p := s.PGStatStatements; p != nil {
		switch {
		case p.Database == "":
			c.add(key+".pg_stat_statements.database", "required: the database whose statements count, e.g. app_${TAILGATE_SIDE:-run}")
		case !pgDatabase.MatchString(p.Database):
			c.add(key+".pg_stat_statements.database", "%q is not a database name (letters, digits and _, with ${TAILGATE_SIDE} or ${TAILGATE_SIDE:-name} for the side's)", p.Database)
		}
		c.addIf(strings.ContainsAny(p.Connect, "'\\\n"), key+".pg_stat_statements.connect", "%q: a connection string without quotes, backslashes or line breaks, e.g. host=127.0.0.1 port=5432 user=postgres dbname=postgres", p.Connect)
	}
	c.addIf(s.Command != nil && s.Command.IsZero(), key+".command", "is empty: give the command whose stdout is a JSON object of counters")
	if p := s.Prometheus; p != nil {
		validatePrometheus(p, key+".prometheus", c)
	}
	for i, g := range s.Gate {
		switch k := joinIndex(key+".gate", i); {
		case s.PGStatStatements != nil && !slices.Contains(PGStatCounters, g):
			c.add(k, "%q is not a pg_stat_statements counter (%s)", g, strings.Join(PGStatCounters, ", "))
		case s.Prometheus != nil && !slices.Contains(s.Prometheus.Metrics, g):
			c.add(k, "%q is not one of prometheus.metrics (%s)", g, strings.Join(s.Prometheus.Metrics, ", "))
		case !CounterName.MatchString(g):
			c.add(k, "%q is not a counter name (letters, digits and _)", g)
		}
	}
	checkPositive(s.Timeout, key+".timeout", c) // DefaultCounterTimeout unless given
}

func exactlyOne(set ...bool) bool {
	n := 0
	for _, b := range set {
		n += btoi(b)
	}
	return n == 1
}

func validatePrometheus(p *PrometheusSource, key string, c *collector) {
	switch {
	case (p.Path == "") == (p.URL == ""):
		c.addKey(key, "give exactly one of path (requested on the target's url, e.g. /metrics) or url (an exporter's, on loopback)")
	case p.Path != "":
		checkPath(p.Path, key+".path", false, c)
	default:
		u, err := url.Parse(p.URL)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			c.add(key+".url", "invalid URL %q: expected http://127.0.0.1:port/path", p.URL)
		case !IsLoopback(u.Hostname()):
			c.add(key+".url", "host %q is not this machine: counters are read from loopback only (127.0.0.0/8, ::1 or localhost), like the load", u.Hostname())
		}
	}
	c.addIf(len(p.Metrics) == 0, key+".metrics", "required: the counters to read, e.g. [go_memstats_mallocs_total]")
	for i, m := range p.Metrics {
		c.addIf(!CounterName.MatchString(m), joinIndex(key+".metrics", i), "%q is not a Prometheus metric name", m)
	}
}

func (p MeasurePart) String() string {
	switch {
	case p.PIDFile != "":
		return fmt.Sprintf("%s (pid file %s)", p.Name, p.PIDFile)
	case p.Process != nil && p.Process.Comm != "":
		return fmt.Sprintf("%s (processes named %s)", p.Name, p.Process.Comm)
	case p.Process != nil:
		return fmt.Sprintf("%s (processes matching %s)", p.Name, p.Process.Cmdline)
	default:
		return fmt.Sprintf("%s (cgroup %s)", p.Name, p.Cgroup)
	}
}

// validateFootprintKeys checks that the part and counter keys the gate
// names name a part or counter source of some target (a typo gates nothing).
func validateFootprintKeys(cfg *Config, c *collector) {
	parts, sources := map[string]bool{TargetPart: true}, map[string]bool{}
	for _, t := range cfg.footprintTargets() {
		for _, p := range t.Measure {
			parts[p.Name] = true
		}
		for _, s := range t.Counters {
			sources[s.Name] = true
		}
	}
	check := func(key, metric string) {
		part, isPart := strings.CutPrefix(metric, result.PartPrefix)
		c.addKeyIf(isPart && !parts[strings.Split(part, ".")[0]], key, "%q names no part of target.measure (%s)", metric, strings.Join(slices.Sorted(maps.Keys(parts)), ", "))
		counter, isCounter := strings.CutPrefix(metric, result.CounterPrefix)
		c.addKeyIf(isCounter && !sources[strings.Split(counter, ".")[0]], key, "%q names no counter source of target.counters", metric)
	}
	for i, m := range cfg.Gate.Metrics { // set only when the file gives them
		check(joinIndex("gate.metrics", i), m)
	}
	for _, m := range slices.Sorted(maps.Keys(cfg.Gate.Floors)) {
		check(joinKey("gate.floors", m), m)
	}
	for _, m := range slices.Sorted(maps.Keys(cfg.Gate.MinEffect)) {
		check(joinKey("gate.min_effect", m), m)
	}
}

// footprintTargets are the top-level target and the A/B sides' own.
func (c *Config) footprintTargets() []*Target {
	targets := []*Target{&c.Target}
	if ab := c.AB; ab != nil {
		targets = append(targets, &ab.Base.Target, &ab.Head.Target)
	}
	return targets
}
