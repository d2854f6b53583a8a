// Package config owns the benchmark file, tailgate.yml: its types, defaults,
// strict parsing and validation. Every problem is reported with the file,
// line and column it comes from, all at once.
package config

import (
	"reflect"
	"slices"
	"strings"
	"time"
)

// Config is one benchmark definition.
type Config struct {
	// Path is the file the config was read from (not part of the YAML).
	Path string `yaml:"-"`

	Name      string     `yaml:"name"`
	Seed      int64      `yaml:"seed"`
	Target    Target     `yaml:"target"`
	Dataset   Dataset    `yaml:"dataset"`
	Drain     *Drain     `yaml:"drain"`
	Load      Load       `yaml:"load"`
	Scenarios []Scenario `yaml:"scenarios"`
	// Setup holds the steps that run once per run and once per virtual
	// user, before the load; Feed the rows of per-user data.
	Setup *Setup `yaml:"setup"`
	Feed  *Feed  `yaml:"feed"`
	Gate  Gate   `yaml:"gate"`
	// Build is the command that builds the service from its source tree,
	// run before tailgate starts the target: in A/B in each side's tree
	// (the working tree, a git worktree of ab.base.ref).
	Build *Build `yaml:"build"`
	// AB is same-runner A/B (`tailgate ab`): the two builds and how many
	// pairs of runs judge them.
	AB *AB `yaml:"ab"`
	// PassEnv names environment variables that tailgate's children (the
	// target, dataset commands, the load tool) get although they hold
	// GitHub or Actions credentials, which children lose by default.
	PassEnv []string `yaml:"pass_env"`
}

// A/B run orders.
const (
	OrderABBA   = "abba"
	OrderRandom = "random"
)

// A/B restart policies.
const (
	// RestartEveryPair starts each side afresh for its run of every pair,
	// so that what one process of a build differs from another by (its
	// memory layout, its JIT, its caches) is noise the pairs see, not a
	// bias they carry.
	RestartEveryPair = "every_pair"
	// RestartNever starts each side once for the whole job.
	RestartNever = "never"
)

// Which phases a block of the block designs measures (ab.phases).
const (
	// PhasesUndecided leaves a phase out of a block once every gated
	// metric taken from it has decided, so that the time goes to the
	// metrics still undecided.
	PhasesUndecided = "undecided"
	// PhasesAll measures every phase in every block.
	PhasesAll = "all"
)

// What an A/B job does where its sides cannot be sealed off from each
// other (ab.unsealed).
const (
	// UnsealedRefuse (the default) ends the job with a runtime failure:
	// without the seal the head's code could reach the base.
	UnsealedRefuse = "refuse"
	// UnsealedAllow runs the sides unsealed, and every report says so.
	UnsealedAllow = "allow"
	// RootSocketsHide (ab.root_sockets' default) hides the container
	// engines' sockets from the sides; UnsealedAllow shows them.
	RootSocketsHide = "hide"
)

// NoiseOff as ab.noise keeps no noise file.
const NoiseOff = "off"

// Defaults of the ab section. A unit is a block: both sides measured in
// short windows of DefaultWindow (each phase's load.duration per side;
// ab.windows 0 derives the count from it), so a block measures about as
// long as a pair of whole runs does; where blocks cannot run, a block is
// one pair of whole runs. Its first look comes at 3.
const (
	DefaultMinBlocks    = 3
	DefaultMaxBlocks    = 12
	DefaultWindow       = Duration(500 * time.Millisecond)
	DefaultWindowWarmup = Duration(0)
	// MaxWindows bounds the windows of each side per phase in a block.
	MaxWindows = 200
)

// AB is same-runner A/B: a base and a head build measured in one job in
// pairs of runs (one of each side, back to back, in alternating or random
// order), added one pair at a time until the verdict is clear.
type AB struct {
	// Base is the build judged against: a git ref that tailgate checks
	// out and builds, or a target of its own (url, start, …), or both.
	// Left empty it must come from elsewhere (the Action's pull request
	// base commit, `tailgate ab --base-ref`).
	Base ABSide `yaml:"base"`
	// Head is the build under review; empty: the top-level target in the
	// working tree.
	Head ABSide `yaml:"head"`
	// Order is "abba" (AB BA AB …, the default) or "random" (each pair in
	// a seeded random order).
	Order string `yaml:"order"`
	// MinPairs is the first look of the sequential verdict (ab.min_blocks)
	// and MaxPairs the budget of blocks (ab.max_blocks); MaxTime, when not
	// 0, a budget of time for the blocks (builds not counted): the job
	// ends at whichever comes first.
	MinPairs int      `yaml:"min_blocks"`
	MaxPairs int      `yaml:"max_blocks"`
	MaxTime  Duration `yaml:"max_time"`
	// Restart is RestartEveryPair (the default) or RestartNever:
	// every_pair starts both sides afresh for every block.
	Restart string `yaml:"restart"`
	// Windows is the number of windows of each side per phase in a block
	// (the block designs); 0: as many as fill the phase's load.duration.
	// Window is each one's measured length, and WindowWarmup the warm-up
	// before every window (a side's first window of a phase in a block
	// follows the phase's own warm-up).
	Windows      int      `yaml:"windows"`
	Window       Duration `yaml:"window"`
	WindowWarmup Duration `yaml:"window_warmup"`
	// Phases is PhasesUndecided (the default) or PhasesAll: which phases
	// a block measures after the first look (the block designs).
	Phases string `yaml:"phases"`
	// Noise is a file that keeps the spread of the units of earlier A/B
	// jobs of this benchmark on this machine class, pooled with a job's
	// own when consistent with it; "" the user's cache
	// (tailgate/noise.json under XDG_CACHE_HOME or ~/.cache), NoiseOff
	// none.
	Noise string `yaml:"noise"`
	// AllowMissing accepts a gated metric that one side measured and the
	// other lost in some blocks or pairs as inconclusive (exit 0); by
	// default the job fails (exit 3), since what a side lost may be the
	// regression itself, or a side stopped by the other.
	AllowMissing bool `yaml:"allow_missing"`
	// Unsealed is UnsealedRefuse (the default) or UnsealedAllow: whether
	// the job may run where the sides cannot be sealed off from each
	// other (package seal). It is policy: on a pull request the base
	// commit's config decides it.
	Unsealed string `yaml:"unsealed"`
	// RootSockets is RootSocketsHide (the default) or UnsealedAllow:
	// whether the sealed sides may reach the sockets of container engines
	// (docker, containerd, podman), which grant root. Policy, as Unsealed.
	RootSockets string `yaml:"root_sockets"`
	// Procedure are directories (or files), relative to the directory
	// tailgate runs in, whose every file is, with benchmark_from: base,
	// the base commit's for both sides (the scripts the procedure's
	// commands call), read-only.
	Procedure []string `yaml:"procedure"`
}

// ABSide is one side of an A/B job: a build from a git ref and/or the
// target that serves it. A side that names a target (its url) is a target
// of its own, which takes every top-level target key it does not set but
// the ones that say which service it is (SideOwnKeys); one that names none
// uses the top-level target.
type ABSide struct {
	Target `yaml:",inline"`
	// Ref is a git commit, branch or tag (origin/main, a sha) that
	// tailgate checks out in a temporary worktree, builds with the build
	// command and starts there.
	Ref string `yaml:"ref"`
	// Verify, when set, checks this side's dataset instead of
	// dataset.verify: two builds whose fixed datasets differ (a migration
	// that adds a row) each verify their own.
	Verify *Check `yaml:"verify"`
}

// HasTarget reports whether the side names a target of its own.
func (s ABSide) HasTarget() bool { return s.URL != "" }

// IsEmpty reports whether the side names neither a build nor a target.
func (s ABSide) IsEmpty() bool { return s.Ref == "" && !s.HasTarget() }

// SideOwnKeys say which service a side of its own is (where and how it is
// reached, how its process comes to be); every other target key is the
// same service's whichever build runs it, and is inherited.
var SideOwnKeys = []string{"url", "remote", "tls", "start", "pid_file"}

// TargetOr is the side's target: its own, which takes every key of top it
// leaves unset but SideOwnKeys (the one rule a side resolves by), or else
// top.
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
	if s.Verify != nil {
		t.Verify = s.Verify
	}
	return t
}

// Build is a command that builds the service in its source tree.
type Build struct {
	Command Command `yaml:"command"`
	// Dir is its working directory, relative to the tree (default: the
	// tree's directory that tailgate runs in).
	Dir string `yaml:"dir"`
	// Timeout stops a build that takes longer (default 10m).
	Timeout Duration `yaml:"timeout"`
}

// Target is the service under test.
type Target struct {
	URL   string `yaml:"url"`
	Start *Start `yaml:"start"`
	Ready *Ready `yaml:"ready"`
	// PIDFile names a file holding the pid of a target started elsewhere,
	// so that its CPU and memory can be sampled.
	PIDFile string `yaml:"pid_file"`
	// Remote allows a URL whose host is not this machine: the network to
	// it is then part of what is measured, and its CPU and memory are not.
	Remote bool `yaml:"remote"`
	// TLS configures the connections to an https URL.
	TLS *TLS `yaml:"tls"`
	// Measure lists the other parts of the request path (a database
	// server, a cache) whose processes are accounted beside the target's.
	Measure []MeasurePart `yaml:"measure"`
	// Counters lists where work counters are read before and after each
	// measured window.
	Counters []CounterSource `yaml:"counters"`

	// Tree is the source tree the target is built and started from (its
	// side's worktree in A/B), set by InTree; empty: tailgate's working
	// directory. Its commands see it as TAILGATE_SIDE_DIR.
	Tree string `yaml:"-" json:"-"`
	// Verify is the side's own dataset check (ab.<side>.verify), set by
	// ABSide.TargetOr; nil: dataset.verify.
	Verify *Check `yaml:"-" json:"-"`
}

// RemoteTarget reports whether any target of the benchmark is on another
// machine (remote: true), so that the network is part of what it measures.
func (c *Config) RemoteTarget() bool {
	if c.Target.Remote {
		return true
	}
	return c.AB != nil && (c.AB.Base.Remote || c.AB.Head.Remote)
}

// TLS configures the connections to an https target. The system's roots
// are always trusted; CAFile adds the certificates of a private CA (PEM).
type TLS struct {
	// CAFile is a PEM file of CA certificates, relative to the config
	// file's directory.
	CAFile string `yaml:"ca_file"`
	// CAPEM is CAFile's content, read and checked by Parse.
	CAPEM string `yaml:"-"`
}

// Start is a command tailgate starts before the runs and stops after them.
type Start struct {
	Command Command           `yaml:"command"`
	Dir     string            `yaml:"dir"`
	Env     map[string]string `yaml:"env"`
}

// Command is a program with arguments. In YAML it is either a list
// (run directly) or a string (run by `sh -c`).
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

// Check is an Action whose outcome must match: for a request, the status and
// JSON values; for a command, exit status 0.
type Check struct {
	Action `yaml:",inline"`
	// Expect holds JSON path → expected value, e.g. {"count": 3}.
	Expect map[string]any `yaml:"expect"`
}

// Request is one HTTP request template.
type Request struct {
	Method  string            `yaml:"method"` // default GET
	Path    string            `yaml:"path"`
	Headers map[string]string `yaml:"headers"`
	// JSON is a body given as a YAML value and sent as JSON; string leaves
	// may hold templates. Body is a raw body template. Form holds fields
	// sent URL-encoded; values may hold templates (omitted when unset, so
	// definitions without it keep their hash). At most one is set.
	JSON any               `yaml:"json"`
	Body string            `yaml:"body"`
	Form map[string]string `json:",omitempty" yaml:"form"`
	// Status is the expected status; default any 2xx.
	Status int `yaml:"status"`
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

// Load models.
const (
	ModelOpen   = "open"
	ModelClosed = "closed"
)

// Load engines.
const (
	EngineTailgate = "tailgate"
	EngineCommand  = "command"
)

// HTTP clients of the built-in generator.
const (
	ClientFast    = "fast"
	ClientNetHTTP = "nethttp"
)

// Load says how work is offered and for how long.
type Load struct {
	// Engine is "tailgate" (the built-in generator, the default) or
	// "command": each run executes Command, a load tool of the user's
	// (k6, Locust, JMeter, …), and imports the file it writes to Output.
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
	// Runs is the number of samples (default 5). A number of samples is
	// not part of the definition: it is left out of the hash.
	Runs           int      `yaml:"runs" json:"-"`
	RequestTimeout Duration `yaml:"request_timeout"` // default 10s
	// Cookies turns each virtual user's cookie jar on or off (nil: on,
	// as in browsers and k6). The jar keeps the cookies responses set
	// and sends them back; cookies sent change what is measured, so
	// turning the jar off changes the definition hash (on is hashed as
	// unset, as a definition without the key was before it existed).
	Cookies *bool `yaml:"cookies" json:",omitempty"`
	// Client is the generator's HTTP client: ClientFast, ClientNetHTTP,
	// or empty for the fast one. Which client sends the requests does not
	// change what is measured, so it is left out of the definition hash.
	Client string `yaml:"client" json:"-"`
	// Phases, when set, split every run into phases, each after its own
	// dataset reset, verify and drain: at most one closed phase (capacity:
	// its iterations/s is the run's throughput) and one open phase
	// (latency: its percentiles and dropped work are the run's). The
	// model keys above are then set per phase; Warmup and Duration are
	// the phases' defaults.
	Phases []Phase `yaml:"phases" json:",omitempty"`
	// MaxFailedPercent is the largest share of a run's completed
	// iterations, or of its requests, in percent, that may fail before
	// the run is refused as no measurement (a runtime failure): a broken
	// reset or a service that answers errors measures the error path, not
	// the service (nil: DefaultMaxFailedPercent; 100 accepts any run). It
	// decides whether a run counts, not what it measures: left out of the
	// hash.
	MaxFailedPercent *float64 `yaml:"max_failed_percent" json:"-"`
}

// FailedPercentAllowed is load.max_failed_percent, or its default.
func (l Load) FailedPercentAllowed() float64 {
	if l.MaxFailedPercent == nil {
		return DefaultMaxFailedPercent
	}
	return *l.MaxFailedPercent
}

// Phase is one part of a run: a load model offered for a warm-up and a
// measured window.
type Phase struct {
	// Name names the phase in results and reports; default "capacity"
	// for the closed model, "latency" for the open one.
	Name        string   `yaml:"name"`
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

// Default phase names.
const (
	PhaseCapacity = "capacity"
	PhaseLatency  = "latency"
)

// Scenario is a weighted sequence of steps: one iteration runs them in order.
type Scenario struct {
	Name   string `yaml:"name"`
	Weight int    `yaml:"weight"` // default 1
	Steps  []Step `yaml:"steps"`
}

// Step is one request of a scenario.
type Step struct {
	Name    string `yaml:"name"`
	Request `yaml:",inline"`
	// Save maps a variable name to where the response holds its value (a
	// JSON path in the body, a header or a cookie the response sets);
	// later steps of the same iteration use it as {{.name}}.
	Save map[string]SaveFrom `yaml:"save"`
	// Expect holds JSON path → expected value checked on the response.
	Expect map[string]any `yaml:"expect"`
}

// Setup is what runs before the load of each run, unmeasured: Run once
// (after the dataset reset, verify and drain, before the warm-up), then VU
// once per virtual user (closed model) or worker (open model). Values they
// save are seen by every later step: Run's by VU's and by every iteration,
// a VU's by its own iterations.
type Setup struct {
	Run []Step `yaml:"run"`
	VU  []Step `yaml:"vu"`
}

// Feed takings.
const (
	FeedPerVU        = "vu"
	FeedPerIteration = "iteration"
	FeedWrap         = "wrap"
	FeedFail         = "fail"
)

// Feed is a file of rows (CSV with a header line, or a JSON list of
// objects) that templates read with {{feed "column"}}: each virtual user,
// or each iteration, takes the next row. The file is data of the
// benchmark: its content, not its name, is in the definition hash.
type Feed struct {
	// File is the data file, relative to the config file's directory.
	File string `yaml:"file" json:"-"`
	// Per is FeedPerVU (the default: VU n takes row n) or
	// FeedPerIteration (iteration n of a run takes row n).
	Per string `yaml:"per"`
	// AtEnd says what happens when the rows run out: FeedWrap (the
	// default) starts again at the first, FeedFail fails the run.
	AtEnd string `yaml:"at_end"`

	// Columns, Rows and Content are read from File by Parse: the column
	// names, the rows (one value per column) and "sha256:<hex>" of the
	// file's bytes.
	Columns []string   `yaml:"-" json:"-"`
	Rows    [][]string `yaml:"-" json:"-"`
	Content string     `yaml:"-" json:"content"`
}

// Gate is the decision policy.
type Gate struct {
	Baseline string `yaml:"baseline"` // default baselines/<name>.json
	// Window and Alpha, 0 when not given, take the defaults of the
	// baseline and the gate that read them (30 samples, 0.05).
	Window int     `yaml:"window"`
	Alpha  float64 `yaml:"alpha"`
	// Floors stand in for the noise floor until it is measured (by
	// calibrate, or in A/B by the job itself), by metric key: a relative
	// change in percent for ratio metrics, percentage points for rates.
	// They replace the built-in defaults and make any metric gateable.
	Floors map[string]float64 `yaml:"floors"`
	// MinEffect is the smallest change worth failing for, by metric key,
	// in the units of Floors: it applies on top of any floor, measured or
	// not, and is what sequential A/B judges against (gate.DefaultMinEffect
	// for the metrics it does not name).
	MinEffect map[string]float64 `yaml:"min_effect"`
	// Metrics lists the gated metric keys; nil when not given, which
	// GatedMetrics reads as the gate's defaults and the targets' own.
	Metrics []string `yaml:"metrics"`
	// History bounds the history of main that record keeps beside the
	// baseline.
	History HistoryRetention `yaml:"history"`
	// Creep names what a check also compares the head with.
	Creep Creep `yaml:"creep"`
}

// HistoryRetention is how much of main's history is kept.
type HistoryRetention struct {
	// Jobs is how many recorded jobs are kept (0: baseline's default,
	// DefaultHistoryJobs); the file also stays under
	// baseline.MaxHistoryBytes.
	Jobs int `yaml:"jobs"`
}

// Creep lists the references a check compares the head with besides the
// baseline window, to show a slow creep no single change shows: each is
// CreepWindowStart (the oldest job of the window) or "tag:GLOB" (the
// newest release tag matching GLOB that the history has a job of).
// Default: both, with tag:v*; an empty list turns it off.
type Creep struct {
	Against []string `yaml:"against"`
}

// CreepWindowStart is the creep reference of the window's oldest job.
const CreepWindowStart = "window_start"

// CreepTagPrefix starts a creep reference to a release tag.
const CreepTagPrefix = "tag:"

// Duration is a time.Duration written as "10s", "500ms".
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Rate is a number of events per second, written as "50/s", "3000/m" or "50".
type Rate struct {
	PerSecond float64
}

// CookieJar reports whether each virtual user keeps a cookie jar
// (load.cookies, on by default).
func (l Load) CookieJar() bool { return l.Cookies == nil || *l.Cookies }
