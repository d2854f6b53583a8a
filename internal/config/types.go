// Package config owns the benchmark file, tailgate.yml: its types, defaults,
// strict parsing and validation. Every problem is reported with the file,
// line and column it comes from, all at once.
package config

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"time"
)

type Config struct {
	Path string `yaml:"-"` // the file it was read from

	Name      string     `yaml:"name"`
	Seed      int64      `yaml:"seed"`
	Target    Target     `yaml:"target"`
	Dataset   Dataset    `yaml:"dataset"`
	Drain     *Drain     `yaml:"drain"`
	Load      Load       `yaml:"load"`
	Scenarios []Scenario `yaml:"scenarios"`
	Setup     *Setup     `yaml:"setup"`
	Feed      *Feed      `yaml:"feed"`
	Gate      Gate       `yaml:"gate"`
	Build     *Build     `yaml:"build"`
	AB        *AB        `yaml:"ab"`
	// PassEnv names the credentials tailgate's children get nonetheless
	// (by default they lose every GitHub or Actions credential).
	PassEnv []string `yaml:"pass_env"`
}

const (
	OrderABBA   = "abba"
	OrderRandom = "random"
	// RestartEveryPair starts each side afresh for every block, so that
	// what one process differs from another by is noise, not a bias.
	RestartEveryPair = "every_pair"
	RestartNever     = "never"
	// PhasesUndecided leaves a phase out of a block once every gated
	// metric taken from it has decided.
	PhasesUndecided = "undecided"
	PhasesAll       = "all"
	// UnsealedRefuse: without the seal the head's code could reach the
	// base. RootSocketsHide hides the container engines' sockets from the
	// sides, UnsealedAllow (ab.root_sockets too) shows them.
	UnsealedRefuse  = "refuse"
	UnsealedAllow   = "allow"
	RootSocketsHide = "hide"
	NoiseOff        = "off" // keeps no noise file
)

// Defaults of the ab section. A block measures both sides in windows of
// at least DefaultWindow filling each phase's load.duration (an unset
// ab.window is chosen by the job: runner.Shape); where blocks cannot
// run, a block is one pair of whole runs.
const (
	DefaultMinBlocks    = 3
	DefaultMaxBlocks    = 12
	DefaultWindow       = Duration(500 * time.Millisecond)
	DefaultWindowWarmup = Duration(0)
	// MaxWindows bounds the windows of each side per phase in a block.
	MaxWindows = 200
	// BlockLifecycles: the fewest lifecycles of a user a side's closed windows
	// hold a block, ab.windows unset (bench/decide/RESULTS.md).
	BlockLifecycles = 8
)

// AB is same-runner A/B: a base and a head build measured in one job,
// block after block, until the verdict is clear (docs/config.md#ab).
type AB struct {
	// Base is a git ref tailgate builds, a target of its own, or both;
	// empty, it comes from the Action's PR base or --base-ref. Head
	// empty is the top-level target in the working tree.
	Base  ABSide `yaml:"base"`
	Head  ABSide `yaml:"head"`
	Order string `yaml:"order"`
	// MinBlocks is the first look (ab.min_blocks), MaxBlocks the budget of
	// blocks, MaxTime (0: none) a budget of time; whichever ends first.
	MinBlocks    int      `yaml:"min_blocks"`
	MaxBlocks    int      `yaml:"max_blocks"`
	MaxTime      Duration `yaml:"max_time"`
	Restart      string   `yaml:"restart"`
	Windows      int      `yaml:"windows"` // per side and phase in a block; 0: fill load.duration
	Window       Duration `yaml:"window"`  // 0: the job chooses
	WindowWarmup Duration `yaml:"window_warmup"`
	Phases       string   `yaml:"phases"`
	// Noise is the file of earlier jobs' spread: "" the user's cache,
	// NoiseOff none.
	Noise string `yaml:"noise"`
	// AllowMissing passes as inconclusive a gated metric one side lost
	// (by default exit 3: what a side lost may be the regression itself).
	AllowMissing bool `yaml:"allow_missing"`
	// Unsealed and RootSockets are policy: on a pull request the base
	// commit's config decides them.
	Unsealed    string `yaml:"unsealed"`
	RootSockets string `yaml:"root_sockets"`
	// Procedure are paths whose files are, with benchmark_from: base, the
	// base commit's for both sides, read-only.
	Procedure []string `yaml:"procedure"`
}

// ABSide is one side of an A/B job: a build from a git ref and/or the target
// that serves it. A side with a url is a target of its own, taking every
// top-level target key it leaves unset but SideOwnKeys (which say which
// service it is); one without uses the top-level target.
type ABSide struct {
	Target `yaml:",inline"`
	Ref    string `yaml:"ref"` // built in a temporary worktree
	// Verify replaces dataset.verify for this side (a migration that adds
	// a row).
	Verify *Check `yaml:"verify"`
}

// HasTarget: the side is a target of its own; IsEmpty: neither that nor a ref.
func (s ABSide) HasTarget() bool { return s.URL != "" }
func (s ABSide) IsEmpty() bool   { return s.Ref == "" && !s.HasTarget() }

// SideOwnKeys say which service a side of its own is (where and how it is
// reached, how its process comes to be); every other target key is the
// same service's whichever build runs it, and is inherited.
var SideOwnKeys = []string{"url", "remote", "tls", "start", "pid_file"}

// TargetOr is the side's own target, filled from top as ABSide says, or else top.
func (s ABSide) TargetOr(top Target) Target {
	t := top
	if s.HasTarget() {
		t = s.Target
		tv, fv := reflect.ValueOf(&t).Elem(), reflect.ValueOf(top)
		for i := range tv.NumField() {
			key, _, _ := strings.Cut(tv.Type().Field(i).Tag.Get("yaml"), ",")
			if key != "" && key != "-" && !slices.Contains(SideOwnKeys, key) && tv.Field(i).IsZero() {
				tv.Field(i).Set(fv.Field(i))
			}
		}
	}
	t.Verify = cmp.Or(s.Verify, t.Verify)
	return t
}

// Build builds the service in its source tree (in A/B, in each side's).
type Build struct {
	Command Command  `yaml:"command"`
	Dir     string   `yaml:"dir"` // relative to the tree
	Timeout Duration `yaml:"timeout"`
}

type Target struct {
	URL     string `yaml:"url"`
	Start   *Start `yaml:"start"`
	Ready   *Ready `yaml:"ready"`
	PIDFile string `yaml:"pid_file"` // of a target started elsewhere, to sample it
	// Remote allows a host that is not this machine: the network is then
	// measured, the target's CPU and memory are not.
	Remote   bool            `yaml:"remote"`
	TLS      *TLS            `yaml:"tls"`
	Measure  []MeasurePart   `yaml:"measure"`
	Counters []CounterSource `yaml:"counters"`

	// Tree is the source tree the target is built and started from (its
	// side's worktree in A/B), set by InTree; empty: tailgate's working
	// directory. Its commands see it as TAILGATE_SIDE_DIR.
	Tree string `yaml:"-" json:"-"`
	// Verify is the side's own dataset check (ab.<side>.verify), set by
	// ABSide.TargetOr; nil: dataset.verify.
	Verify *Check `yaml:"-" json:"-"`
}

// RemoteTarget: a target is on another machine, the network measured too.
func (c *Config) RemoteTarget() bool {
	return c.Target.Remote || c.AB != nil && (c.AB.Base.Remote || c.AB.Head.Remote)
}

// TLS adds a private CA's PEM (relative to the config) to the system's roots.
type TLS struct {
	CAFile string `yaml:"ca_file"`
	CAPEM  string `yaml:"-"` // CAFile's content, read and checked by Parse
}

// Start is a command tailgate starts before the runs and stops after them.
type Start struct {
	Command Command           `yaml:"command"`
	Dir     string            `yaml:"dir"`
	Env     map[string]string `yaml:"env"`
}

// Command is a program: in YAML a list (run directly) or a string (sh -c).
type Command struct {
	Args  []string
	Shell string
}

// Ready is the readiness probe polled after start (and before the first run).
type Ready struct {
	Path     string   `yaml:"path"`
	Status   int      `yaml:"status"`   // default 200
	Timeout  Duration `yaml:"timeout"`  // default 30s
	Interval Duration `yaml:"interval"` // default 100ms
}

// Dataset puts the target into the fixed state every run starts from.
type Dataset struct {
	Reset  *Action `yaml:"reset"`
	Verify *Check  `yaml:"verify"`
}

// Action is an HTTP request or a command; exactly one is set.
type Action struct {
	Request *Request `yaml:"request"`
	Command *Command `yaml:"command"`
}

// Check is an Action whose outcome must match: a request's status and
// JSON values (Expect), a command's exit status 0; either's body (stdout)
// Regex (omitted when unset, so older definitions keep their hash).
type Check struct {
	Action `yaml:",inline"`
	Expect map[string]any `yaml:"expect"`
	Regex  string         `json:",omitempty" yaml:"regex"`
}

type Request struct {
	Method  string            `yaml:"method"` // default GET
	Path    string            `yaml:"path"`
	Headers map[string]string `yaml:"headers"`
	// At most one body: JSON (a YAML value), Body (raw), Form (URL-encoded;
	// omitted when unset, so older definitions keep their hash).
	JSON   any               `yaml:"json"`
	Body   string            `yaml:"body"`
	Form   map[string]string `json:",omitempty" yaml:"form"`
	Status int               `yaml:"status"` // default any 2xx
}

// Drain waits until the target is idle: Probe is polled every Interval until
// Until holds continuously for Quiet, failing after Timeout.
type Drain struct {
	Probe    Request        `yaml:"probe"`
	Until    map[string]any `yaml:"until"`
	Quiet    Duration       `yaml:"quiet"`    // default 500ms
	Timeout  Duration       `yaml:"timeout"`  // default 30s
	Interval Duration       `yaml:"interval"` // default 100ms
}

// Load models, engines and the built-in generator's HTTP clients.
const (
	ModelOpen      = "open"
	ModelClosed    = "closed"
	EngineTailgate = "tailgate"
	EngineCommand  = "command"
	ClientFast     = "fast"
	ClientNetHTTP  = "nethttp"
	PhaseCapacity  = "capacity" // a closed phase's default name
	PhaseLatency   = "latency"  // an open phase's
)

// Load says how work is offered and for how long.
type Load struct {
	// Engine "command" runs Command, the user's load tool, every run and
	// imports the file it writes to Output.
	Engine         string   `yaml:"engine"`
	Command        *Command `yaml:"command"`
	Output         string   `yaml:"output"`
	Format         string   `yaml:"format"`          // the output's format; detected when empty
	CommandTimeout Duration `yaml:"command_timeout"` // default 10m

	Model string `yaml:"model"` // open (default) or closed
	// Open model: iterations start at Rate; with RampFrom set the rate
	// rises linearly from RampFrom to Rate over Ramp, then stays at Rate.
	Rate        Rate     `yaml:"rate"`
	RampFrom    *Rate    `yaml:"ramp_from"`
	Ramp        Duration `yaml:"ramp"`
	MaxInflight int      `yaml:"max_inflight"` // default 256
	// Closed model: VUs loop iterations, pausing Think between them.
	VUs   int      `yaml:"vus"`
	Think Duration `yaml:"think"`

	Warmup   Duration `yaml:"warmup"`   // default 2s
	Duration Duration `yaml:"duration"` // default 10s
	// Runs, Client and MaxFailedPercent do not change what one sample
	// measures: they are left out of the definition hash. Cookies nil is
	// on (hashed as unset, as before the key existed).
	Runs           int      `yaml:"runs" json:"-"`   // default 5
	RequestTimeout Duration `yaml:"request_timeout"` // default 10s
	Cookies        *bool    `yaml:"cookies" json:",omitempty"`
	Client         string   `yaml:"client" json:"-"` // ClientFast when empty
	// Phases split a run into at most one closed phase (its iterations/s
	// is the throughput) and one open phase (its latency and dropped work),
	// each after its own reset, verify and drain; the model keys are then
	// the phases', Warmup and Duration their defaults.
	Phases []Phase `yaml:"phases" json:",omitempty"`
	// MaxFailedPercent is the share of a run's iterations or requests that
	// may fail before the run is refused as no measurement (nil:
	// DefaultMaxFailedPercent).
	MaxFailedPercent *float64 `yaml:"max_failed_percent" json:"-"`
}

// FailedPercentAllowed is load.max_failed_percent, or its default.
func (l Load) FailedPercentAllowed() float64 {
	if l.MaxFailedPercent == nil {
		return DefaultMaxFailedPercent
	}
	return *l.MaxFailedPercent
}

// Phase is one part of a run: a load model, its warm-up and measured window.
type Phase struct {
	Name        string   `yaml:"name"` // default PhaseCapacity (closed), PhaseLatency (open)
	Model       string   `yaml:"model"`
	Rate        Rate     `yaml:"rate"`
	RampFrom    *Rate    `yaml:"ramp_from"`
	Ramp        Duration `yaml:"ramp"`
	MaxInflight int      `yaml:"max_inflight"`
	VUs         int      `yaml:"vus"`
	Think       Duration `yaml:"think"`
	Warmup      Duration `yaml:"warmup"`
	Duration    Duration `yaml:"duration"`
}

// Scenario is a weighted sequence of steps: one iteration runs them in order.
type Scenario struct {
	Name   string `yaml:"name"`
	Weight int    `yaml:"weight"` // default 1
	Steps  []Step `yaml:"steps"`
}

type Step struct {
	Name    string `yaml:"name"`
	Request `yaml:",inline"`
	// Save maps a variable later steps read as {{.name}} to where the
	// response holds it; Expect JSON path → expected value.
	Save   map[string]SaveFrom `yaml:"save"`
	Expect map[string]any      `yaml:"expect"`
}

// Setup runs before the load of each run, unmeasured: Run once, then VU
// once per virtual user (or open-model worker); what they save, every
// later step sees.
type Setup struct {
	Run []Step `yaml:"run"`
	VU  []Step `yaml:"vu"`
}

// Values of feed.per and feed.at_end; the creep references: the window's
// oldest job, a release tag.
const (
	FeedPerVU        = "vu"
	FeedPerIteration = "iteration"
	FeedWrap         = "wrap"
	FeedFail         = "fail"
	CreepWindowStart = "window_start"
	CreepTagPrefix   = "tag:"
)

// Feed is a file of rows (CSV with a header line, or a JSON list of
// objects) that templates read with {{feed "column"}}: each virtual user,
// or each iteration, takes the next row. Its content, not its name, is in
// the definition hash.
type Feed struct {
	File  string `yaml:"file" json:"-"` // relative to the config file
	Per   string `yaml:"per"`
	AtEnd string `yaml:"at_end"`
	// Columns, Rows and Content ("sha256:<hex>" of the file) are read from
	// File by Parse.
	Columns []string   `yaml:"-" json:"-"`
	Rows    [][]string `yaml:"-" json:"-"`
	Content string     `yaml:"-" json:"content"`
}

type Gate struct {
	Baseline string `yaml:"baseline"` // default baselines/<name>.json
	// Window and Alpha, 0 when not given, take the defaults of the
	// baseline and the gate that read them (30 samples, 0.05).
	Window int     `yaml:"window"`
	Alpha  float64 `yaml:"alpha"`
	// Floors stand in for the noise floor until it is measured, by metric
	// key (percent for ratio metrics, points for rates); MinEffect is the
	// smallest change worth failing for, in the same units, on top.
	Floors    map[string]float64 `yaml:"floors"`
	MinEffect map[string]float64 `yaml:"min_effect"`
	// Metrics nil (not given) is read by GatedMetrics.
	Metrics []string         `yaml:"metrics"`
	History HistoryRetention `yaml:"history"`
	Creep   Creep            `yaml:"creep"`
}

// HistoryRetention is how many jobs of main's history record keeps (0: default).
type HistoryRetention struct {
	Jobs int `yaml:"jobs"`
}

// Creep lists what a check compares the head with besides the baseline
// window, to show a slow creep no single change shows: CreepWindowStart (the
// window's oldest job) or "tag:GLOB" (the newest release tag matching GLOB
// with a job in the history). Default: both, with tag:v*; [] turns it off.
type Creep struct {
	Against []string `yaml:"against"`
}

// Duration is a time.Duration written as "10s", "500ms".
type Duration time.Duration

func (d Duration) D() time.Duration { return time.Duration(d) }

// Rate is a number of events per second, written as "50/s", "3000/m" or "50".
type Rate struct {
	PerSecond float64
}

// CookieJar reports whether each VU keeps cookies (load.cookies, default on).
func (l Load) CookieJar() bool { return l.Cookies == nil || *l.Cookies }
