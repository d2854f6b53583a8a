package config

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Defaults for keys the file leaves out. A key the file sets is kept as
// written, even when zero (warmup: 0s means no warm-up), and validated.
const (
	DefaultMaxInflight = 256
	// DefaultMaxFailedPercent: a run where more than half of the
	// iterations (or requests) failed is not a measurement.
	DefaultMaxFailedPercent = 50.0
	DefaultWarmup           = Duration(2 * time.Second)
	DefaultDuration         = Duration(10 * time.Second)
	DefaultRuns             = 5
	DefaultCommandTimeout   = Duration(10 * time.Minute)
	DefaultRequestTimeout   = Duration(10 * time.Second)
	DefaultReadyStatus      = 200
	DefaultReadyTimeout     = Duration(30 * time.Second)
	DefaultReadyInterval    = Duration(100 * time.Millisecond)
	DefaultDrainQuiet       = Duration(500 * time.Millisecond)
	DefaultDrainTimeout     = Duration(30 * time.Second)
	DefaultDrainInterval    = Duration(100 * time.Millisecond)
	DefaultWeight           = 1
	DefaultBuildTimeout     = Duration(10 * time.Minute)
)

func applyDefaults(cfg *Config, c *collector) {
	base := filepath.Base(cfg.Path)
	setDefault(&cfg.Name, c, "name", strings.TrimSuffix(base, filepath.Ext(base)))
	defaultTarget(&cfg.Target, "target", c)
	if ab := cfg.AB; ab != nil {
		defaultAB(ab, c)
	}
	if b := cfg.Build; b != nil {
		setDefault(&b.Timeout, c, "build.timeout", DefaultBuildTimeout)
	}
	defaultDataset(&cfg.Dataset)
	if d := cfg.Drain; d != nil {
		defaultRequest(&d.Probe)
		setDefault(&d.Quiet, c, "drain.quiet", DefaultDrainQuiet)
		setDefault(&d.Timeout, c, "drain.timeout", DefaultDrainTimeout)
		setDefault(&d.Interval, c, "drain.interval", DefaultDrainInterval)
	}
	defaultLoad(&cfg.Load, c)
	for i := range cfg.Scenarios {
		s, path := &cfg.Scenarios[i], joinIndex("scenarios", i)
		setDefault(&s.Name, c, path+".name", fmt.Sprintf("scenario-%d", i+1))
		setDefault(&s.Weight, c, path+".weight", DefaultWeight)
		defaultSteps(s.Steps, c, path+".steps")
	}
	if s := cfg.Setup; s != nil {
		defaultSteps(s.Run, c, "setup.run")
		defaultSteps(s.VU, c, "setup.vu")
	}
	if f := cfg.Feed; f != nil {
		setDefault(&f.Per, c, "feed.per", FeedPerVU)
		setDefault(&f.AtEnd, c, "feed.at_end", FeedWrap)
	}
	setDefault(&cfg.Gate.Baseline, c, "gate.baseline", "baselines/"+cfg.Name+".json")
	setDefault(&cfg.Gate.Creep.Against, c, "gate.creep.against", []string{CreepWindowStart, CreepTagPrefix + "v*"})
}

// GatedMetrics are the metrics gate.metrics names, else defaults (the
// gate's) and every target's footprint metrics gated by default, once each.
func (c *Config) GatedMetrics(defaults []string) []string {
	if len(c.Gate.Metrics) > 0 {
		return c.Gate.Metrics
	}
	out := slices.Clone(defaults)
	for _, t := range c.footprintTargets() {
		for _, k := range t.GatedByDefault() {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

func defaultAB(ab *AB, c *collector) {
	defaultTarget(&ab.Base.Target, "ab.base", c)
	defaultTarget(&ab.Head.Target, "ab.head", c)
	for _, v := range []*Check{ab.Base.Verify, ab.Head.Verify} {
		if v != nil && v.Request != nil {
			defaultRequest(v.Request)
		}
	}
	setDefault(&ab.Order, c, "ab.order", OrderABBA)
	setDefault(&ab.Restart, c, "ab.restart", RestartEveryPair)
	setDefault(&ab.MinBlocks, c, "ab.min_blocks", DefaultMinBlocks)
	setDefault(&ab.MaxBlocks, c, "ab.max_blocks", max(DefaultMaxBlocks, ab.MinBlocks))
	setDefault(&ab.WindowWarmup, c, "ab.window_warmup", DefaultWindowWarmup)
	setDefault(&ab.Phases, c, "ab.phases", PhasesUndecided)
	setDefault(&ab.Unsealed, c, "ab.unsealed", UnsealedRefuse)
	setDefault(&ab.RootSockets, c, "ab.root_sockets", RootSocketsHide)
}

// DefaultAB is the ab section a config without one gets when an A/B job
// is asked for (the Action's mode: ab): every key at its default.
func DefaultAB() *AB {
	ab := &AB{}
	defaultAB(ab, newCollector(""))
	return ab
}

func defaultDataset(ds *Dataset) {
	if ds.Reset != nil && ds.Reset.Request != nil {
		defaultRequest(ds.Reset.Request)
	}
	if ds.Verify != nil && ds.Verify.Request != nil {
		defaultRequest(ds.Verify.Request)
	}
}

func defaultLoad(l *Load, c *collector) {
	setDefault(&l.Engine, c, "load.engine", EngineTailgate)
	setDefault(&l.Runs, c, "load.runs", DefaultRuns)
	if l.Engine == EngineCommand {
		setDefault(&l.CommandTimeout, c, "load.command_timeout", DefaultCommandTimeout)
		return
	}
	setDefault(&l.Warmup, c, "load.warmup", DefaultWarmup)
	setDefault(&l.Duration, c, "load.duration", DefaultDuration)
	setDefault(&l.RequestTimeout, c, "load.request_timeout", DefaultRequestTimeout)
	if c.given("load.phases") {
		for i := range l.Phases {
			defaultPhase(&l.Phases[i], *l, c, joinIndex("load.phases", i))
		}
		return // the model keys are the phases'
	}
	setDefault(&l.Model, c, "load.model", ModelOpen)
	if l.Model == ModelOpen {
		setDefault(&l.MaxInflight, c, "load.max_inflight", DefaultMaxInflight)
	}
}

// defaultPhase fills a phase's keys: the model as at the top level, the
// warm-up and window from the load section, the name from the model.
func defaultPhase(p *Phase, top Load, c *collector, path string) {
	setDefault(&p.Model, c, path+".model", ModelOpen)
	if p.Model == ModelOpen {
		setDefault(&p.MaxInflight, c, path+".max_inflight", DefaultMaxInflight)
	}
	setDefault(&p.Warmup, c, path+".warmup", top.Warmup)
	setDefault(&p.Duration, c, path+".duration", top.Duration)
	name := map[string]string{ModelOpen: PhaseLatency, ModelClosed: PhaseCapacity}[p.Model]
	setDefault(&p.Name, c, path+".name", cmp.Or(name, p.Model)) // an unknown model, reported as such
}

// defaultSteps names each step "<METHOD> <path>" unless it has a name.
func defaultSteps(steps []Step, c *collector, path string) {
	for j := range steps {
		st := &steps[j]
		defaultRequest(&st.Request)
		setDefault(&st.Name, c, joinIndex(path, j)+".name", st.Method+" "+st.Path)
	}
}

// defaultRequest upper-cases the method, by default GET (POST with a body).
func defaultRequest(r *Request) {
	r.Method = strings.ToUpper(r.Method)
	if r.Method == "" && (r.JSON != nil || r.Body != "" || r.Form != nil) {
		r.Method = "POST"
	}
	r.Method = cmp.Or(r.Method, "GET")
}

func setDefault[T any](v *T, c *collector, path string, def T) {
	if !c.given(path) {
		*v = def
	}
}

func defaultTarget(t *Target, key string, c *collector) {
	for i := range t.Counters {
		setDefault(&t.Counters[i].Timeout, c, joinIndex(key+".counters", i)+".timeout", DefaultCounterTimeout)
	}
	if r := t.Ready; r != nil {
		setDefault(&r.Path, c, key+".ready.path", "/")
		setDefault(&r.Status, c, key+".ready.status", DefaultReadyStatus)
		setDefault(&r.Timeout, c, key+".ready.timeout", DefaultReadyTimeout)
		setDefault(&r.Interval, c, key+".ready.interval", DefaultReadyInterval)
	}
}
