// Command phasecpu measures which phase of a two-phase run (a closed
// capacity phase beside an open latency phase) measures the demo service's
// CPU per iteration best for A/B: it runs A/A pairs of two processes of
// the clean demo build, each side started afresh for its run of every pair,
// and reports per phase (and for the whole run) the spread of the pairs'
// log differences, which sets what the sequential verdict can detect.
//
//	go build -o /tmp/tailgate ./cmd/tailgate
//	go run ./bench/phasecpu -bin /tmp/tailgate -pairs 16
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
)

const benchYAML = `name: phasecpu
target:
  url: "http://127.0.0.1:{{port}}"
  start: {command: [BIN, demo-serve, --addr, "127.0.0.1:{{port}}"]}
  ready: {path: /health, timeout: 20s, interval: 20ms}
dataset:
  reset: {request: {method: POST, path: /reset}}
  verify: {request: {path: /count}, expect: {count: 3}}
drain: {probe: {path: /stats}, until: {pending: 0}, quiet: 200ms}
load:
  warmup: WARMUP
  duration: DURATION
  phases:
    - {name: capacity, model: closed, vus: VUS}
    - {name: latency, model: open, rate: RATE/s, max_inflight: 64}
scenarios:
  - steps:
      - {name: create, method: POST, path: /complaints, json: {title: "c {{seq}}"}, status: 201, save: {id: id}}
      - {name: assign, method: POST, path: "/complaints/{{.id}}/assign", json: {assignee: a}}
      - {name: resolve, method: POST, path: "/complaints/{{.id}}/resolve"}
      - {name: search, path: "/complaints/search?q=c"}
`

func main() {
	bin := flag.String("bin", "tailgate", "the tailgate binary (runs demo-serve and the supervisor)")
	pairs := flag.Int("pairs", 16, "A/A pairs")
	vus := flag.Int("vus", 2, "users of the capacity phase")
	rate := flag.Int("rate", 10, "lifecycles per second of the latency phase")
	duration := flag.Duration("duration", 2*time.Second, "measured window of each phase")
	warmup := flag.Duration("warmup", 500*time.Millisecond, "warm-up of each phase")
	restart := flag.Bool("restart", true, "start each side afresh for its run of every pair")
	verbose := flag.Bool("v", false, "print every pair")
	flag.Parse()
	text := strings.NewReplacer("BIN", fmt.Sprintf("%q", *bin), "VUS", fmt.Sprint(*vus), "RATE", fmt.Sprint(*rate),
		"DURATION", duration.String(), "WARMUP", warmup.String()).Replace(benchYAML)
	cfg, err := config.Parse("phasecpu.yml", []byte(text))
	if err != nil {
		fail(err)
	}
	b := &runner.Benchmark{Config: cfg, Environ: os.Environ(), Supervisor: []string{*bin, "supervise"}}
	start := time.Now()
	res, err := b.RunAB(context.Background(), runner.ABPlan{Base: cfg.Target, Head: cfg.Target, Order: config.OrderABBA,
		MaxBlocks: *pairs, Restart: *restart})
	if err != nil {
		fail(err)
	}
	fmt.Printf("%d A/A pairs in %s (restart %v, %d starts taking %s)\n", res.Windows.Blocks(), time.Since(start).Round(time.Second),
		*restart, res.Starts, res.StartTime.Round(time.Millisecond))
	fmt.Printf("%-10s %12s %12s %14s %14s %12s\n", "phase", "iterations", "cpu ms/it", "run CV %", "pair sd %", "pair mean %")
	for _, phase := range []string{"capacity", "latency", "whole run"} {
		var a, h []float64
		var its float64
		for i := range res.Windows.Blocks() {
			x, nx := cpu(res.Base.Runs[i], phase)
			y, _ := cpu(res.Head.Runs[i], phase)
			a, h, its = append(a, x), append(h, y), its+nx
		}
		var d []float64
		for i := range a {
			d = append(d, 100*math.Log(h[i]/a[i]))
			if *verbose {
				fmt.Printf("  %s pair %2d (%s first): base %.2f head %.2f ms/it, %+.1f %%\n", phase, i+1, res.Order[2*i], a[i], h[i], d[i])
			}
		}
		fmt.Printf("%-10s %12.0f %12.2f %14.1f %14.2f %+12.2f\n", phase, its/float64(len(a)), median(append(a, h...)),
			100*sd(logs(append(a, h...))), sd(d), mean(d))
	}
}

// cpu is the CPU per iteration of one phase of a run (or of the whole run:
// all phases' CPU over all their iterations) and its iterations.
func cpu(r result.Run, phase string) (float64, float64) {
	var secs float64
	var its int64
	for _, p := range r.Phases {
		if (phase == "whole run" || p.Name == phase) && p.Resources != nil {
			secs += p.Resources.CPUSeconds
			its += p.Iterations.Completed
		}
	}
	return 1000 * secs / float64(its), float64(its)
}

func logs(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Log(v)
	}
	return out
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func sd(x []float64) float64 {
	m, ss := mean(x), 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "phasecpu:", err)
	os.Exit(1)
}
