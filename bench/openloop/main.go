// Command openloop measures the load generator itself against a trivial
// target: schedule accuracy at a fixed rate, behaviour far beyond capacity,
// and memory over a long run. The target is this program re-executed with
// -serve as a separate process, pinned to CPU 0 when taskset exists; the
// generator pins itself to CPU 1 the same way.
//
//	go run ./bench/openloop                       # all three, full length
//	go run ./bench/openloop -quick                # short durations
//	go run ./bench/openloop -only c -repeat 1     # just the memory run
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

type flags struct {
	serve, pinned, quick bool
	only                 string
	repeat               int
	warmup               time.Duration
	aRate                float64
	aDur                 time.Duration
	bRate                float64
	bInflight            int
	bDur                 time.Duration
	cRate                float64
	cDur                 time.Duration
}

func main() {
	var f flags
	flag.BoolVar(&f.serve, "serve", false, "run as the target server (internal)")
	flag.BoolVar(&f.pinned, "pinned", false, "already pinned to a CPU (internal)")
	flag.BoolVar(&f.quick, "quick", false, "short durations: a 2s, b 2s, c 5s")
	flag.StringVar(&f.only, "only", "abc", "which measurements to run (a, b, c)")
	flag.IntVar(&f.repeat, "repeat", 3, "runs per measurement; the median is reported")
	flag.DurationVar(&f.warmup, "warmup", time.Second, "warm-up before each measure window")
	flag.Float64Var(&f.aRate, "a-rate", 2000, "(a) target iterations/s")
	flag.DurationVar(&f.aDur, "a-duration", 10*time.Second, "(a) measure window")
	flag.Float64Var(&f.bRate, "b-rate", 50000, "(b) offered iterations/s")
	flag.IntVar(&f.bInflight, "b-inflight", 64, "(b) max_inflight")
	flag.DurationVar(&f.bDur, "b-duration", 5*time.Second, "(b) measure window")
	flag.Float64Var(&f.cRate, "c-rate", 5000, "(c) iterations/s")
	flag.DurationVar(&f.cDur, "c-duration", 60*time.Second, "(c) measure window")
	flag.Parse()
	if f.quick {
		f.aDur, f.bDur, f.cDur = 2*time.Second, 2*time.Second, 5*time.Second
	}
	var err error
	if f.serve {
		err = serve()
	} else {
		err = bench(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openloop:", err)
		os.Exit(1)
	}
}

func bench(f flags) error {
	if !f.pinned {
		if path, err := exec.LookPath("taskset"); err == nil && runtime.NumCPU() > 1 {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			args := append([]string{"taskset", "-c", "1", self, "-pinned"}, os.Args[1:]...)
			return syscall.Exec(path, args, os.Environ()) // returns only on failure
		}
	}
	target, stop, err := startTarget()
	if err != nil {
		return err
	}
	defer stop()
	plan, err := scenario.CompileWith([]config.Scenario{{Name: "ok", Steps: []config.Step{{Name: "ok", Request: config.Request{Path: "/"}}}}}, scenario.Inputs{Seed: 1})
	if err != nil {
		return err
	}
	cpus, _ := statusField("Cpus_allowed_list")
	fmt.Printf("generator: GOMAXPROCS=%d, CPUs %s; target %s (CPU 0 when taskset exists)\n", runtime.GOMAXPROCS(0), cpus, target)
	for _, m := range f.only {
		var err error
		switch m {
		case 'a':
			err = repeat(f.repeat, "a", func() (map[string]float64, error) { return measureRate(plan, target, f) })
		case 'b':
			err = repeat(f.repeat, "b", func() (map[string]float64, error) { return measureOverload(plan, target, f) })
		case 'c':
			err = repeat(f.repeat, "c", func() (map[string]float64, error) { return measureMemory(plan, target, f) })
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// repeat runs a measurement n times and prints each figure's runs and median.
func repeat(n int, name string, m func() (map[string]float64, error)) error {
	all := map[string][]float64{}
	for i := 0; i < n; i++ {
		got, err := m()
		if err != nil {
			return fmt.Errorf("measurement %s: %w", name, err)
		}
		for k, v := range got {
			all[k] = append(all[k], v)
		}
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vs := append([]float64(nil), all[k]...)
		sort.Float64s(vs)
		fmt.Printf("  (%s) %-28s median %10.3f   runs %v\n", name, k, vs[len(vs)/2], fmtAll(all[k]))
	}
	return nil
}

func fmtAll(vs []float64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprintf("%.3f", v)
	}
	return "[" + strings.Join(s, " ") + "]"
}

func measureRate(plan *scenario.Plan, target string, f flags) (map[string]float64, error) {
	opt := load.Options{Model: load.Open, Pacer: load.Constant{PerSecond: f.aRate}, MaxInflight: load.DefaultMaxInflight,
		Warmup: f.warmup, Duration: f.aDur, RequestTimeout: 5 * time.Second}
	cpu0 := cpuTime()
	r, err := load.Run(context.Background(), plan, target, opt)
	if err != nil {
		return nil, err
	}
	cpu := cpuTime() - cpu0
	return map[string]float64{
		// CPU over the warm-up and the window, per iteration offered in both.
		"generator_cpu_us_per_iteration": float64(cpu.Microseconds()) / (f.aRate * (f.warmup + f.aDur).Seconds()),
		"achieved_pct_of_target":         100 * float64(r.Iterations.Completed) / r.Window / f.aRate,
		"schedule_lag_p99_ms":            ms(r.ScheduleLag.Quantile(0.99)),
		"schedule_lag_p50_ms":            ms(r.ScheduleLag.Quantile(0.50)),
		"latency_p99_ms":                 ms(r.Latency.Quantile(0.99)),
		"dropped":                        float64(r.Iterations.Dropped),
		"failed_requests":                float64(r.Requests.Failed),
	}, nil
}

func measureOverload(plan *scenario.Plan, target string, f flags) (map[string]float64, error) {
	if err := get(target + "/__reset"); err != nil {
		return nil, err
	}
	var peak atomic.Int64
	opt := load.Options{Model: load.Open, Pacer: load.Constant{PerSecond: f.bRate}, MaxInflight: f.bInflight,
		Warmup: f.warmup, Duration: f.bDur, RequestTimeout: 5 * time.Second,
		Progress: func(p load.Progress) { peak.Store(p.PeakInflight) }}
	sockets := sampleSockets()
	cpu0 := cpuTime()
	begin := time.Now()
	r, err := load.Run(context.Background(), plan, target, opt)
	took := time.Since(begin)
	cpu := cpuTime() - cpu0
	maxSockets := sockets()
	if err != nil {
		return nil, err
	}
	var st stats
	if err := getJSON(target+"/__stats", &st); err != nil {
		return nil, err
	}
	return map[string]float64{
		"dropped_pct":             r.Metrics["dropped_pct"],
		"achieved_iterations_s":   r.Metrics["iterations_per_s"],
		"peak_inflight_generator": float64(peak.Load()),
		"peak_inflight_server":    float64(st.MaxInflight),
		"max_open_sockets":        float64(maxSockets),
		"server_conns_opened":     float64(st.Conns),
		"overrun_after_window_ms": ms(took - f.warmup - f.bDur),
		"generator_cpu_pct":       100 * float64(cpu) / float64(took),
	}, nil
}

func measureMemory(plan *scenario.Plan, target string, f flags) (map[string]float64, error) {
	opt := load.Options{Model: load.Open, Pacer: load.Constant{PerSecond: f.cRate}, MaxInflight: load.DefaultMaxInflight,
		Warmup: f.warmup, Duration: f.cDur, RequestTimeout: 5 * time.Second}
	r, err := load.Run(context.Background(), plan, target, opt)
	if err != nil {
		return nil, err
	}
	hwm, err := statusKB("VmHWM")
	if err != nil {
		return nil, err
	}
	rss, _ := statusKB("VmRSS")
	return map[string]float64{
		"requests":            float64(r.Requests.Total),
		"peak_rss_mb_VmHWM":   hwm / 1024,
		"rss_at_end_mb":       rss / 1024,
		"achieved_pct":        100 * float64(r.Iterations.Completed) / r.Window / f.cRate,
		"schedule_lag_p99_ms": ms(r.ScheduleLag.Quantile(0.99)),
	}, nil
}

// sampleSockets counts this process's open sockets every 50ms until the
// returned function is called, which returns the largest count seen.
func sampleSockets() func() int {
	var best atomic.Int64
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			best.Store(max(best.Load(), int64(countSockets())))
			select {
			case <-t.C:
			case <-quit:
				return
			}
		}
	})
	return func() int { close(quit); wg.Wait(); return int(best.Load()) }
}

func countSockets() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

func statusKB(field string) (float64, error) {
	v, err := statusField(field)
	if err != nil {
		return 0, err
	}
	var kb float64
	_, err = fmt.Sscan(strings.TrimSuffix(v, " kB"), &kb)
	return kb, err
}

func statusField(field string) (string, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("%s not in /proc/self/status", field)
}

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// startTarget starts this program with -serve as a child process and
// returns its URL.
func startTarget() (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	args := []string{self, "-serve"}
	if path, err := exec.LookPath("taskset"); err == nil && runtime.NumCPU() > 1 {
		args = append([]string{path, "-c", "0"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting the target: %w", err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("reading the target's address: %w", err)
	}
	return "http://" + strings.TrimSpace(line), stop, nil
}

type stats struct {
	MaxInflight int64 `json:"max_inflight"`
	Conns       int64 `json:"conns"`
}

// serve is the target: "ok" for every path, plus counters of concurrency
// and connections for the overload measurement.
func serve() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var inflight, peak, conns atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/__stats", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(stats{MaxInflight: peak.Load(), Conns: conns.Load()})
	})
	mux.HandleFunc("/__reset", func(w http.ResponseWriter, r *http.Request) { peak.Store(0); conns.Store(0) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		_, _ = w.Write([]byte("ok"))
	})
	srv := &http.Server{Handler: mux, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}}
	fmt.Println(l.Addr().String())
	err = srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func get(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}
