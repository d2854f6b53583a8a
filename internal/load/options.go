package load

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// Defaults, also used by the config layer and the CLI.
const (
	DefaultMaxInflight    = 256
	DefaultRequestTimeout = 10 * time.Second
	// ProgressInterval is how often Options.Progress is called.
	ProgressInterval = 250 * time.Millisecond
)

// Load models.
const (
	Open   = config.ModelOpen
	Closed = config.ModelClosed
)

// HTTP clients (Options.Client).
const (
	// ClientFast is fasthttp: HTTP/1.1 at a fraction of net/http's CPU per
	// request. The default.
	ClientFast = config.ClientFast
	// ClientNetHTTP is Go's net/http client, tuned for load.
	ClientNetHTTP = config.ClientNetHTTP
)

// Options say how a run offers work. Warmup comes first: iterations that
// start in it are excluded from every figure. Duration is the measured
// window after it; no iteration starts after the window, and those running
// when it closes get RequestTimeout to finish and still count (iterations
// still running then are cut, counted as started, and noted).
type Options struct {
	Model string // Open or Closed
	// Open model: Pacer schedules iteration starts; at most MaxInflight
	// iterations run at once, and an iteration due while all are busy is
	// dropped and counted.
	Pacer       Pacer
	MaxInflight int
	// Closed model: VUs workers loop iterations, pausing Think in between.
	VUs   int
	Think time.Duration

	Warmup   time.Duration
	Duration time.Duration
	// RequestTimeout bounds each request, and how long in-flight
	// iterations may finish after the window closes.
	RequestTimeout time.Duration
	// Client chooses the engine's own HTTP client: ClientFast (also when
	// empty) or ClientNetHTTP. Either is tuned for load: no proxy, no
	// compression, keep-alive connections bounded by MaxInflight or VUs,
	// redirects not followed.
	Client string
	// HTTPClient, when set, sends the requests instead of the engine's
	// own client (as net/http, so Client must be empty or ClientNetHTTP).
	HTTPClient *http.Client
	// TLS configures the engine's own clients' connections to an https
	// target; nil means the system's roots.
	TLS *tls.Config
	// Progress, when set, is called every ProgressInterval from one
	// goroutine, and once more when the run ends.
	Progress func(Progress)
	// Part is the share of a sharded load this run offers (zero: all of
	// it), and FirstVU the vu number of its first worker; Shard.Split sets
	// both.
	Part    Shard
	FirstVU int
	// OnMeasure, when set, is called once when the measured window starts:
	// the moment to start sampling the target's resources. After a warm-up
	// it is called from another goroutine while the load goes on; with no
	// warm-up it is called before the first iteration and the window's
	// clock starts when it returns, so however long it takes (reading
	// counters), the sampling spans all the window's work.
	OnMeasure func()
	// Seq, when set, numbers the iterations ({{seq}}) from where earlier
	// runs given the same Sequence left off: the runs of one dataset epoch
	// (the windows of a block, their warm-ups included) never repeat a
	// number, so no value drawn from it repeats either. Nil: from 0.
	Seq *Sequence
	// OnSetupDone, when set, is called once the setup steps are done (or
	// found nothing to do) and before the load clock starts, so that the
	// caller can tell the time logins took from the load's.
	OnSetupDone func()
	// Setup, when set, keeps the values the setup steps saved, so that the
	// later runs given the same cache (windows on one target process)
	// reuse them instead of logging in again: a worker whose setup ran in
	// an earlier run starts with its values. Nil: setup runs every run.
	Setup *SetupCache
}

// Progress is a snapshot of a run for a progress display. Counts cover the
// measured window only.
type Progress struct {
	Phase     string // "warmup" or "measure"
	Elapsed   time.Duration
	Total     time.Duration // warm-up plus measure window
	Completed int64         // iterations that ran to their end
	Failed    int64         // of those, iterations with a failed step
	Dropped   int64         // open model: due iterations that found no free worker
	Inflight  int64         // iterations running now
	// PeakInflight is the most iterations seen running at once.
	PeakInflight int64
}

// Progress phases.
const (
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
)

// FromConfig returns the Options a config's load section asks for.
// HTTPClient, TLS, Progress and OnMeasure are left for the caller.
func FromConfig(l config.Load) Options {
	o := Options{
		Model:          l.Model,
		MaxInflight:    l.MaxInflight,
		VUs:            l.VUs,
		Think:          l.Think.D(),
		Warmup:         l.Warmup.D(),
		Duration:       l.Duration.D(),
		RequestTimeout: l.RequestTimeout.D(),
		Client:         l.Client,
	}
	if o.Model == "" {
		o.Model = Open
	}
	if o.MaxInflight == 0 {
		o.MaxInflight = DefaultMaxInflight
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	o.Pacer = Constant{PerSecond: l.Rate.PerSecond}
	if l.RampFrom != nil {
		o.Pacer = LinearRamp{From: l.RampFrom.PerSecond, To: l.Rate.PerSecond, Over: l.Ramp.D()}
	}
	return o
}

// check reports options no run can use; it fills RequestTimeout's default.
func (o *Options) check() error {
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	var errs []error
	switch o.Model {
	case Open:
		if o.Pacer == nil {
			errs = append(errs, errors.New("open model needs a Pacer (a rate)"))
		} else if _, stop := o.Pacer.Pace(0, 0); stop {
			errs = append(errs, errors.New("open model: the rate offers no iterations; set a rate above 0"))
		}
		if o.MaxInflight <= 0 {
			errs = append(errs, fmt.Errorf("open model: max_inflight is %d; it must be at least 1", o.MaxInflight))
		}
	case Closed:
		if o.VUs <= 0 {
			errs = append(errs, fmt.Errorf("closed model: vus is %d; it must be at least 1", o.VUs))
		}
		if o.Think < 0 {
			errs = append(errs, fmt.Errorf("closed model: think %v is negative", o.Think))
		}
	default:
		errs = append(errs, fmt.Errorf("model %q: use %q or %q", o.Model, Open, Closed))
	}
	if o.Duration <= 0 {
		errs = append(errs, fmt.Errorf("duration %v: the measure window must be longer than 0", o.Duration))
	}
	if o.Warmup < 0 {
		errs = append(errs, fmt.Errorf("warmup %v is negative", o.Warmup))
	}
	if o.RequestTimeout < 0 {
		errs = append(errs, fmt.Errorf("request_timeout %v is negative", o.RequestTimeout))
	}
	if err := o.Part.Check(); err != nil {
		errs = append(errs, err)
	}
	if o.FirstVU < 0 {
		errs = append(errs, fmt.Errorf("first vu %d is negative", o.FirstVU))
	}
	return errors.Join(errs...)
}

// workers is how many goroutines (and at most connections) the run uses.
func (o *Options) workers() int {
	if o.Model == Closed {
		return o.VUs
	}
	return o.MaxInflight
}
