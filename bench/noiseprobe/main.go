// Command noiseprobe measures where an A/B job's noise and time go on a
// real service: two processes (base and head, or base twice for A/A) are
// started per block, each dataset reset once, and one phase of a tailgate
// benchmark file is offered to them in short alternating windows (A B B A
// …) of several lengths, each length for a segment of the block. Every
// window is a line of JSON: its iterations, requests, errors, the
// process's CPU (exact, from schedstat; user and system from /proc/<pid>/stat
// ticks) over the window and up to the side's next window, and its p95.
// Every block adds a line with the time its stages took (start, reset,
// verify, drain, setup, warm-up). `noiseprobe -analyze FILE` turns the
// lines into the spread of each metric per window length, within a block
// and between blocks (what restarting both sides adds).
//
//	go run ./bench/noiseprobe -c bench/pocketbase/ab.yml -aa -blocks 6 -o bench/out/probe.jsonl
//	go run ./bench/noiseprobe -analyze bench/out/probe.jsonl
//
// It uses tailgate's own load engine and target handling, so what it sees
// is what tailgate ab sees; it judges nothing.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
	"github.com/tailgate-ci/tailgate/internal/target"
)

func main() {
	var o options
	flag.StringVar(&o.config, "c", "tailgate.yml", "the benchmark file (ab.base and ab.head, or target)")
	flag.BoolVar(&o.aa, "aa", false, "start the base's command on both sides (A/A: two processes of one build)")
	flag.StringVar(&o.phase, "phase", "", "the phase of load.phases to offer (default: the first closed one, else the first)")
	flag.StringVar(&o.lengths, "windows", "250ms,500ms,1s,2s", "window lengths, each for one segment of every block (rotated from block to block)")
	flag.DurationVar(&o.segment, "segment", 12*time.Second, "time of each window length's segment in a block (both sides together)")
	flag.BoolVar(&o.duet, "duet", false, "load both sides at the same time in every window (duet) instead of alternating")
	flag.IntVar(&o.blocks, "blocks", 4, "blocks: both processes started afresh, datasets reset, then every segment")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "each side's warm-up at the start of a block")
	flag.StringVar(&o.out, "o", "", "JSON lines out (default stdout)")
	analyze := flag.String("analyze", "", "analyze a file of JSON lines instead of measuring")
	flag.Parse()
	if *analyze != "" {
		if err := analyzeFile(*analyze, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "noiseprobe:", err)
			os.Exit(2)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "noiseprobe:", err)
		os.Exit(3)
	}
}

type options struct {
	config, phase, lengths, out string
	aa, duet                    bool
	segment, warmup             time.Duration
	blocks                      int
}

// Window is one measured window of one side, as written.
type Window struct {
	Kind     string  `json:"kind"` // "window"
	Block    int     `json:"block"`
	Length   float64 `json:"length_s"`
	Index    int     `json:"index"` // within the segment, per side
	Side     string  `json:"side"`
	Start    float64 `json:"start_s"` // since the probe began
	Seconds  float64 `json:"seconds"` // the window's measured length
	Iters    int64   `json:"iterations"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	// CPU of the side's process over the window (exact), and from the
	// window's start to the side's next window's start (what the window's
	// work cost including what it left for later); user and system ticks
	// over the window.
	CPUWindow float64  `json:"cpu_s_window"`
	CPUCycle  *float64 `json:"cpu_s_cycle,omitempty"`
	UserTicks int64    `json:"user_ticks"`
	SysTicks  int64    `json:"sys_ticks"`
	P95       float64  `json:"p95_ms"`
	Load1     float64  `json:"load1"`
	cpuStart  float64
}

// Block is the time a block's stages took.
type Block struct {
	Kind  string             `json:"kind"` // "block"
	Block int                `json:"block"`
	Spent map[string]float64 `json:"spent_s"`
	Load1 float64            `json:"load1"`
}

func run(ctx context.Context, o options) error {
	cfg, err := config.LoadFile(o.config)
	if err != nil {
		return err
	}
	lengths, err := parseLengths(o.lengths)
	if err != nil {
		return err
	}
	ph, err := pickPhase(cfg, o.phase)
	if err != nil {
		return err
	}
	plan, err := scenario.CompileWith(cfg.Scenarios, scenario.Inputs{Seed: cfg.Seed, Setup: cfg.Setup, Feed: cfg.Feed, NoCookies: !cfg.Load.CookieJar(), Getenv: os.Getenv})
	if err != nil {
		return err
	}
	sides, err := sideTargets(cfg, o.aa)
	if err != nil {
		return err
	}
	out := io.Writer(os.Stdout)
	if o.out != "" {
		f, err := os.Create(o.out)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	p := &probe{cfg: cfg, plan: plan, phase: ph, sides: sides, o: o, began: time.Now(), enc: json.NewEncoder(out)}
	for blk := 0; blk < o.blocks; blk++ {
		order := rotate(lengths, blk)
		fmt.Fprintf(os.Stderr, "block %d of %d: windows %v\n", blk+1, o.blocks, order)
		if err := p.block(ctx, blk, order); err != nil {
			return fmt.Errorf("block %d: %w", blk+1, err)
		}
	}
	return nil
}

func parseLengths(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("-windows: %q is not a duration > 0", f)
		}
		out = append(out, d)
	}
	return out, nil
}

func rotate[T any](s []T, k int) []T {
	k %= len(s)
	return append(append([]T{}, s[k:]...), s[:k]...)
}

func pickPhase(cfg *config.Config, name string) (config.PhaseLoad, error) {
	phases := cfg.Load.RunPhases()
	for _, ph := range phases {
		if (name == "" && ph.Load.Model == config.ModelClosed) || (name != "" && ph.Name == name) {
			return ph, nil
		}
	}
	if name == "" {
		return phases[0], nil
	}
	return config.PhaseLoad{}, fmt.Errorf("no phase %q in load.phases", name)
}

func sideTargets(cfg *config.Config, aa bool) ([2]config.Target, error) {
	var ab config.AB
	if cfg.AB != nil {
		ab = *cfg.AB
	}
	base, head := ab.Base.TargetOr(cfg.Target), ab.Head.TargetOr(cfg.Target)
	if aa {
		head = base
	}
	if base.Start == nil || head.Start == nil {
		return [2]config.Target{}, errors.New("both sides need a start command: the probe restarts them every block")
	}
	return [2]config.Target{base, head}, nil
}

type probe struct {
	cfg   *config.Config
	plan  *scenario.Plan
	phase config.PhaseLoad
	sides [2]config.Target
	o     options
	began time.Time
	mu    sync.Mutex // duet windows end concurrently
	enc   *json.Encoder
}

type side struct {
	name  string
	url   string
	proc  *target.Process
	setup *load.SetupCache
	// last is the side's latest window, whose cycle CPU the next one ends.
	last *Window
}

var sideNames = [2]string{"base", "head"}

func (p *probe) block(ctx context.Context, blk int, lengths []time.Duration) error {
	spent := map[string]float64{}
	timed := func(stage string, f func() error) error {
		t := time.Now()
		err := f()
		spent[stage] += time.Since(t).Seconds()
		return err
	}
	var sides [2]*side
	defer func() {
		for _, s := range sides {
			if s != nil && s.proc != nil {
				s.proc.Stop()
			}
		}
	}()
	client := &http.Client{Timeout: 30 * time.Second}
	for i, t := range p.sides {
		s := &side{name: sideNames[i], setup: &load.SetupCache{}}
		sides[i] = s
		if err := timed("start", func() error { return p.start(ctx, t, s) }); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	for _, s := range sides {
		ch := target.Children{Environ: os.Environ()}.With("TAILGATE_SIDE=" + s.name) // the side's own dataset
		if err := timed("reset", func() error { return target.Reset(ctx, client, s.url, p.cfg.Dataset.Reset, ch) }); err != nil {
			return err
		}
		if err := timed("verify", func() error { return target.Verify(ctx, client, s.url, p.cfg.Dataset.Verify, ch) }); err != nil {
			return err
		}
		if err := timed("drain", func() error { return target.Drain(ctx, client, s.url, p.cfg.Drain) }); err != nil {
			return err
		}
	}
	// Each side's warm-up, which also runs its setup (logins) once: the
	// cache keeps them for every later window of this process.
	for _, s := range sides {
		t := time.Now()
		var setupDone time.Time
		_, err := p.offer(ctx, s, p.o.warmup, func() { setupDone = time.Now() })
		if err != nil {
			return fmt.Errorf("%s warm-up: %w", s.name, err)
		}
		spent["setup"] += setupDone.Sub(t).Seconds()
		spent["warmup"] += time.Since(setupDone).Seconds()
	}
	for _, length := range lengths {
		pairs := max(int(p.o.segment/(2*length)), 1)
		if p.o.duet {
			pairs *= 2 // both sides measure all the time
		}
		for w := 0; w < pairs; w++ {
			if p.o.duet {
				wins, err := p.duetWindow(ctx, sides, blk, length, w)
				if err != nil {
					return err
				}
				spent["measured"] += wins[0].Seconds
				continue
			}
			first := (blk + w) % 2
			for _, i := range []int{first, 1 - first} {
				win, err := p.window(ctx, sides[i], blk, length, w)
				if err != nil {
					return err
				}
				spent["measured"] += win.Seconds
			}
		}
		for _, s := range sides { // a cycle never spans two lengths
			p.emit(s, nil)
		}
	}
	return p.enc.Encode(Block{Kind: "block", Block: blk, Spent: spent, Load1: load1()})
}

func (p *probe) start(ctx context.Context, t config.Target, s *side) error {
	if t.UsesPort() {
		u, err := url.Parse(strings.ReplaceAll(t.URL, config.PortPlaceholder, "1"))
		if err != nil {
			return err
		}
		port, err := target.FreePort(u.Hostname())
		if err != nil {
			return err
		}
		t = t.WithPort(port)
	}
	proc, err := target.Start(ctx, t.URL, t, target.StartOptions{Children: target.Children{Environ: os.Environ()}.With("TAILGATE_SIDE=" + s.name)})
	if err != nil {
		return err
	}
	s.url, s.proc = t.URL, proc
	return nil
}

// offer runs the phase's load on s for d (a 1 ms warm-up: the setup is
// cached after the first), calling measuring when the window opens.
func (p *probe) offer(ctx context.Context, s *side, d time.Duration, measuring func()) (*result.Run, error) {
	opt := load.FromConfig(p.phase.Load)
	opt.Warmup, opt.Duration = time.Millisecond, d
	opt.Setup = s.setup
	opt.OnMeasure = measuring
	return load.Run(ctx, p.plan, s.url, opt)
}

func (p *probe) window(ctx context.Context, s *side, blk int, length time.Duration, w int) (*Window, error) {
	var cpu0 float64
	var u0, s0 int64
	var t0 time.Time
	run, err := p.offer(ctx, s, length, func() {
		t0 = time.Now()
		cpu0 = cpuSeconds(s.proc.PID())
		u0, s0 = ticks(s.proc.PID())
	})
	if err != nil {
		return nil, err
	}
	cpu1 := cpuSeconds(s.proc.PID())
	u1, s1 := ticks(s.proc.PID())
	win := &Window{Kind: "window", Block: blk, Length: length.Seconds(), Index: w, Side: s.name,
		Start: t0.Sub(p.began).Seconds(), Seconds: time.Since(t0).Seconds(),
		Iters: run.Iterations.Completed, Requests: run.Requests.Total, Errors: run.Requests.Failed,
		CPUWindow: cpu1 - cpu0, UserTicks: u1 - u0, SysTicks: s1 - s0, Load1: load1(), cpuStart: cpu0}
	if v, ok := run.Metrics[result.LatencyP95]; ok {
		win.P95 = v
	}
	p.emit(s, win)
	return win, nil
}

// duetWindow measures window w of both sides at the same time.
func (p *probe) duetWindow(ctx context.Context, sides [2]*side, blk int, length time.Duration, w int) ([2]*Window, error) {
	var out [2]*Window
	var errs [2]error
	done := make(chan int, 2)
	for i := range sides {
		go func() {
			out[i], errs[i] = p.window(ctx, sides[i], blk, length, w)
			done <- i
		}()
	}
	<-done
	<-done
	return out, errors.Join(errs[0], errs[1])
}

// emit writes s's previous window, now that the next one (or the end of
// the segment, next nil) closes its cycle.
func (p *probe) emit(s *side, next *Window) {
	if prev := s.last; prev != nil {
		if next != nil {
			c := next.cpuStart - prev.cpuStart
			prev.CPUCycle = &c
		}
		p.mu.Lock()
		p.enc.Encode(prev)
		p.mu.Unlock()
	}
	s.last = next
}

// cpuSeconds is the CPU time the live threads of pid have run, from
// /proc/<pid>/task/*/schedstat.
func cpuSeconds(pid int) float64 {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, _ := os.ReadDir(dir)
	var ns uint64
	for _, t := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(data)); len(f) > 0 {
			n, _ := strconv.ParseUint(f[0], 10, 64)
			ns += n
		}
	}
	return float64(ns) / 1e9
}

// ticks are pid's utime and stime, in clock ticks.
func ticks(pid int) (user, sys int64) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	user, _ = strconv.ParseInt(f[11], 10, 64)
	sys, _ = strconv.ParseInt(f[12], 10, 64)
	return user, sys
}

func load1() float64 {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
