package runner

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// running is a target while the benchmark runs.
type running struct {
	label       string
	side        string // "base" or "head" in A/B (TAILGATE_SIDE), else ""
	url         string
	proc        *target.Process
	pid         int          // process to sample; 0 when unknown
	client      *http.Client // for reset, verify and drain (not the load)
	children    target.Children
	notMeasured error         // why the CPU and memory of pid are not the target's
	logPath     string        // the started target's output, or ""
	remote      bool          // target.remote: its CPU and memory are not measured from here
	tls         *tls.Config   // nil: the system's roots
	ready       *config.Ready // polled again after a reset command, which may restart the service
	path        target.Path   // what each window accounts beyond the target's CPU and memory
	verify      *config.Check // ab.<side>.verify; nil: dataset.verify
	// tree is the A/B side's source tree, where its commands run ("": the
	// working directory); two sides of one tree (A/A) may share one
	// database file, so they draw from one sequence (Benchmark.sequence).
	tree string
}

// inTree is path as the side's commands, run in its tree, see it.
func (t *running) inTree(path string) string {
	if t.tree == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(t.tree, path)
}

// start starts the target when it has a start command, else waits until
// the target started elsewhere answers.
func (b *Benchmark) start(ctx context.Context, cfg config.Target, side string) (*running, error) {
	t, err := b.withFreePort(cfg)
	if err != nil {
		return nil, withLabel(side, err)
	}
	dir := t.Tree // TAILGATE_SIDE_DIR: an A/B side's worktree, else the working directory
	if wd, err := os.Getwd(); dir == "" && err == nil {
		dir = wd
	}
	ch := b.sideChildren(side).With(target.SideDirEnv + "=" + cmp.Or(dir, "."))
	ch.Dir = t.Tree
	tlsConfig, err := target.ClientTLS(t)
	if err != nil {
		return nil, withLabel(side, err)
	}
	resetErr := b.resetBeforeFirstStart(ctx, t, side, ch)
	opt := target.StartOptions{Children: ch, Live: b.TargetLive, TLS: tlsConfig}
	if t.Start != nil {
		path, err := b.targetLog(side)
		if err != nil {
			return nil, withLabel(side, err)
		}
		opt.LogPath = path
	}
	p, err := target.Start(ctx, t.URL, t, opt)
	for try := 1; err != nil && cfg.UsesPort() && target.PortTaken(err) && try < portDraws; try++ {
		if t, err = b.withFreePort(cfg); err == nil { // taken since the draw: draw again
			p, err = target.Start(ctx, t.URL, t, opt)
		}
	}
	if err != nil {
		return nil, withLabel(side, startFailure(err, resetErr))
	}
	rt := &running{label: side, side: side, url: t.URL, proc: p, pid: p.PID(), children: ch, notMeasured: p.Measurable(), logPath: p.LogPath(),
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil, TLSClientConfig: tlsConfig}},
		remote: t.Remote, tls: tlsConfig, verify: t.Verify, ready: t.Ready, tree: t.Tree}
	rt.path = rt.pathOf(t)
	return rt, nil
}

// portDraws bounds the ports drawn for one start: another process may
// take a drawn port before the start (parallel jobs on one runner).
const portDraws = 3

// withFreePort is t on a new free port where its URL has {{port}}.
func (b *Benchmark) withFreePort(t config.Target) (config.Target, error) {
	if !t.UsesPort() {
		return t, nil
	}
	u, err := url.Parse(strings.ReplaceAll(t.URL, config.PortPlaceholder, "1"))
	if err != nil {
		return t, fmt.Errorf("target url %q: %w", t.URL, err)
	}
	draw := target.FreePort
	if b.FreePort != nil {
		draw = b.FreePort
	}
	port, err := draw(u.Hostname())
	if err != nil {
		return t, &target.StepError{Step: target.StepStart, Err: err}
	}
	return t.WithPort(port), nil
}

// pathOf is what the target's windows account beside its CPU and memory:
// its own process tree, target.measure's parts and target.counters.
func (t *running) pathOf(cfg config.Target) target.Path {
	var p target.Path
	if len(cfg.Measure) == 0 && len(cfg.Counters) == 0 {
		return p
	}
	if t.pid != 0 && t.notMeasured == nil && !t.remote {
		p.Parts = append(p.Parts, target.FootprintPart{MeasurePart: config.MeasurePart{Name: config.TargetPart}, PID: t.pid})
	}
	for _, m := range cfg.Measure {
		p.Parts = append(p.Parts, target.FootprintPart{MeasurePart: m})
	}
	p.Counters = target.Counters{Sources: cfg.Counters, BaseURL: t.url, Client: t.client, Children: t.children}
	return p
}

// Build runs the config's build command (if any) in the source tree at
// dir ("" for the current directory) as a child of side; its output goes
// to the log.
func (b *Benchmark) Build(ctx context.Context, dir, side string) error {
	bc := b.Config.Build
	if bc == nil {
		return nil
	}
	ch, label := b.sideChildren(side), strings.TrimSpace("build "+side)
	// A build can take minutes with no output of its own: say when it
	// starts and ends, and count it in where the time went.
	in := bc.DirIn(dir)
	shown := in
	if shown == "" || shown == "." {
		shown = "the working directory"
	}
	fmt.Fprintf(b.log(), "%s: building in %s (at most %s)\n", label, shown, bc.Timeout)
	began := time.Now()
	err := target.RunBuild(ctx, &bc.Command, ch, in, bc.Timeout.D(), b.log(), label)
	b.timed(TimeBuild, began)
	if err != nil {
		return withLabel(side, err)
	}
	fmt.Fprintf(b.log(), "%s: built in %s\n", label, time.Since(began).Round(100*time.Millisecond))
	return nil
}

// sideChildren is how this benchmark's processes for side ("" outside
// A/B) are started: with the side's seal, told their side (TAILGATE_SIDE).
func (b *Benchmark) sideChildren(side string) target.Children {
	ch := target.Children{Environ: b.Environ, PassEnv: b.Config.PassEnv, Supervisor: b.Supervisor, Seal: b.Seals[side]}
	if side != "" {
		ch = ch.With(target.SideEnv + "=" + side)
	}
	return ch
}

// targetLog is the log file of the target on side; "" without TargetLogDir.
func (b *Benchmark) targetLog(side string) (string, error) {
	if b.TargetLogDir == "" {
		return "", nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if path, ok := b.logs[side]; ok {
		return path, nil
	}
	name := strings.TrimSuffix("tailgate-"+b.Config.Name+"-target-"+side, "-")
	f, err := os.CreateTemp(b.TargetLogDir, name+"-*.log")
	if err != nil {
		return "", fmt.Errorf("creating the target's log file: %w", err)
	}
	f.Close()
	if b.logs == nil {
		b.logs = map[string]string{}
	}
	b.logs[side] = f.Name()
	return f.Name(), nil
}

func withLabel(label string, err error) error {
	if label == "" || err == nil {
		return err
	}
	return &SideError{Side: label, Err: fmt.Errorf("%s target: %w", label, err)}
}

// SideError is a failure of one side of an A/B job.
type SideError struct {
	Side string
	Err  error
}

func (e *SideError) Error() string { return e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// withOutput adds to a failed setup step (a login the service timed out
// or refused) where the target's output is: its log says why.
func (t *running) withOutput(err error) error {
	var setup *load.SetupError
	if t.logPath == "" || !errors.As(err, &setup) {
		return err
	}
	return fmt.Errorf("%w; the %s output is in %s", err, strings.TrimSpace(t.label+" target's"), t.logPath)
}

func (t *running) stop() {
	t.proc.Stop()
	t.client.CloseIdleConnections()
}

// exited is an error once a started target has ended: no run can measure it.
func (t *running) exited() error { return withLabel(t.side, t.proc.Exited()) }

// sampling measures the target's CPU and memory over a measure window,
// started from the load engine's timer goroutine.
type sampling struct {
	mu      sync.Mutex
	path    *target.PathWindow
	stopped bool // a start that comes after stop (a cancelled run) does nothing
}

func (s *sampling) start(ctx context.Context, tgt *running, path target.Path) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	if tgt.pid != 0 && tgt.notMeasured == nil {
		path.Root = tgt.pid
	}
	if !path.IsZero() {
		s.path = path.Open(ctx)
	}
}

// stop ends the window: the target's CPU and memory (nil, never zero,
// where not measured, with a note why) and the path's footprint.
func (s *sampling) stop(ctx context.Context, tgt *running) (*result.Resources, string, target.PathFootprint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	var f target.PathFootprint
	if s.path != nil {
		f = s.path.Close(ctx)
	}
	switch {
	case tgt.remote:
		return nil, "CPU and memory not measured: the target is remote (target.remote), on another machine", f
	case tgt.pid == 0:
		return nil, "", f // nothing to measure: a target started elsewhere without pid_file
	case tgt.notMeasured != nil:
		return nil, "CPU and memory not measured: " + tgt.notMeasured.Error(), f
	case s.path == nil:
		return nil, "", f // the window never opened (a cancelled run)
	case f.Resources == nil:
		return nil, "CPU and memory not measured: " + f.ResourcesErr.Error(), f
	case f.ResourcesErr != nil:
		return f.Resources, "CPU not measured: " + f.ResourcesErr.Error(), f
	}
	return f.Resources, "", f
}

func addResources(run *result.Run, res *result.Resources, note string) {
	if note != "" {
		run.Notes = append(run.Notes, note)
	}
	if res != nil {
		run.Resources = res
		run.Summarize()
	}
}
