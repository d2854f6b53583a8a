package load

import (
	"cmp"
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
	ProgressInterval      = 250 * time.Millisecond
)

const (
	Open   = config.ModelOpen
	Closed = config.ModelClosed
)

// HTTP clients (Options.Client): fasthttp, HTTP/1.1 at a fraction of
// net/http's CPU per request (the default), or Go's net/http.
const (
	ClientFast    = config.ClientFast
	ClientNetHTTP = config.ClientNetHTTP
)

// Options say how a run offers work: iterations started in the Warmup count
// in no figure; none starts after the Duration window, and those running then
// get RequestTimeout to finish (then they are cut, counted as started, noted).
type Options struct {
	Model string // Open or Closed
	// Open: Pacer schedules iteration starts, at most MaxInflight run at
	// once, one due while all are busy is dropped and counted. Closed: VUs
	// workers loop iterations, pausing Think in between.
	Pacer          Pacer
	MaxInflight    int
	VUs            int
	Think          time.Duration
	Warmup         time.Duration
	Duration       time.Duration
	RequestTimeout time.Duration // each request's bound, and the grace after the window
	// Client is ClientFast (also when empty) or ClientNetHTTP; HTTPClient,
	// when set, sends instead (Client empty or ClientNetHTTP). TLS nil:
	// the system's roots.
	Client     string
	HTTPClient *http.Client
	TLS        *tls.Config
	Progress   func(Progress) // called every ProgressInterval, and once at the end
	// Part is the share of a sharded load this run offers (zero: all of
	// it), FirstVU its first worker's vu number (Shard.Split sets both).
	Part    Shard
	FirstVU int
	// OnMeasure, when set, is called once when the measured window starts
	// (to start sampling the target): after a warm-up from another
	// goroutine (closed model: once every user ended its warm-up
	// iteration); without one before the first iteration, the window's
	// clock starting when it returns.
	OnMeasure func()
	// Seq, when set, numbers the iterations ({{seq}}) on from earlier runs
	// given it, so that the runs of one dataset epoch never repeat a
	// number. Nil: from 0.
	Seq *Sequence
	// OnSetupDone, when set, is called when the setup steps are done,
	// before the load clock starts.
	OnSetupDone func()
	// Setup, when set, keeps the setup steps' sessions for the later runs
	// given it. Nil: setup runs every run.
	Setup *SetupCache
}

// Progress is a snapshot of a run; its counts cover the measured window only.
type Progress struct {
	Phase                      string        // PhaseWarmup or PhaseMeasure
	Elapsed, Total             time.Duration // Total: warm-up plus measure window
	Completed, Failed, Dropped int64         // Failed: of Completed; Dropped: found no free worker
	Inflight, PeakInflight     int64
}

const (
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
)

// FromConfig returns the Options a config's load section asks for.
// HTTPClient, TLS, Progress and OnMeasure are left for the caller.
func FromConfig(l config.Load) Options {
	o := Options{
		Model:          cmp.Or(l.Model, Open),
		MaxInflight:    cmp.Or(l.MaxInflight, DefaultMaxInflight),
		VUs:            l.VUs,
		Think:          l.Think.D(),
		Warmup:         l.Warmup.D(),
		Duration:       l.Duration.D(),
		RequestTimeout: cmp.Or(l.RequestTimeout.D(), DefaultRequestTimeout),
		Client:         l.Client,
		Pacer:          Constant{PerSecond: l.Rate.PerSecond},
	}
	if l.RampFrom != nil {
		o.Pacer = LinearRamp{From: l.RampFrom.PerSecond, To: l.Rate.PerSecond, Over: l.Ramp.D()}
	}
	return o
}

// check reports options no run can use; it fills RequestTimeout's default.
func (o *Options) check() error {
	o.RequestTimeout = cmp.Or(o.RequestTimeout, DefaultRequestTimeout)
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
	errs = append(errs, o.Part.Check()) // errors.Join drops a nil
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
