package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// metric is one figure of a window, on the log scale; ok is false where
// the window has none.
type metric struct {
	name  string
	value func(w Window) (float64, bool)
}

var metrics = []metric{
	{"CPU/iteration (window)", func(w Window) (float64, bool) { return ratio(w.CPUWindow, float64(w.Iters)) }},
	{"CPU/iteration (cycle)", func(w Window) (float64, bool) {
		if w.CPUCycle == nil {
			return 0, false
		}
		return ratio(*w.CPUCycle, float64(w.Iters))
	}},
	{"user ticks/iteration", func(w Window) (float64, bool) { return ratio(float64(w.UserTicks), float64(w.Iters)) }},
	{"system ticks/iteration", func(w Window) (float64, bool) { return ratio(float64(w.SysTicks), float64(w.Iters)) }},
	{"iterations/s", func(w Window) (float64, bool) { return ratio(float64(w.Iters), w.Seconds) }},
	{"CPU share (cores)", func(w Window) (float64, bool) { return ratio(w.CPUWindow, w.Seconds) }},
	{"p95 (window)", func(w Window) (float64, bool) { return w.P95, w.P95 > 0 }},
}

func ratio(a, b float64) (float64, bool) {
	if !(a > 0 && b > 0) {
		return 0, false
	}
	return a / b, true
}

// pairKey identifies a window pair: the base and head windows of one
// index of one segment of one block.
type pairKey struct {
	block  int
	length float64
	index  int
}

func analyzeFile(path string, out io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var windows []Window
	var blocks []Block
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case strings.Contains(string(line), `"kind":"window"`):
			var w Window
			if err := json.Unmarshal(line, &w); err != nil {
				return err
			}
			windows = append(windows, w)
		case strings.Contains(string(line), `"kind":"block"`):
			var b Block
			if err := json.Unmarshal(line, &b); err != nil {
				return err
			}
			blocks = append(blocks, b)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	printTime(out, blocks)
	lengths := map[float64]bool{}
	for _, w := range windows {
		lengths[w.Length] = true
	}
	var ls []float64
	for l := range lengths {
		ls = append(ls, l)
	}
	sort.Float64s(ls)
	fmt.Fprintf(out, "\nSpread of base−head log differences (SD, %%): per window pair, of the block means, and the between-block part beyond the windows.\n")
	fmt.Fprintf(out, "'pair' is one window pair; 'block' the SD of the blocks' mean differences; 'windows→block' what the window pairs alone would give a block mean;\n'between' the block-level SD beyond that (process to process); 'per s' the pair SD scaled to one second of each side.\n\n")
	tw := tabwriter.NewWriter(out, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "metric\twindow\tpairs\tblocks\tpair\tper s\tblock\twindows→block\tbetween\tmean diff\t")
	for _, m := range metrics {
		for _, l := range ls {
			s := spreadOf(windows, m, l)
			if s.pairs < 2 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%gs\t%d\t%d\t%.1f\t%.1f\t%s\t%s\t%s\t%+.1f\t\n", m.name, l, s.pairs, s.blocks,
				100*s.pairSD, 100*s.pairSD*math.Sqrt(l), pct(s.blockSD), pct(s.fromWindows), pct(s.between), 100*s.mean)
		}
	}
	return tw.Flush()
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.1f", 100*x)
}

type spread struct {
	pairs, blocks                               int
	pairSD, blockSD, fromWindows, between, mean float64
}

// spreadOf is the spread of the pairs' log differences (head − base) of
// one metric at one window length: per pair (pooled within blocks, so
// that process offsets do not count), of the block means, and the
// between-block component (a one-way random-effects split).
func spreadOf(windows []Window, m metric, length float64) spread {
	byKey := map[pairKey][2]*float64{}
	for _, w := range windows {
		if w.Length != length {
			continue
		}
		v, ok := m.value(w)
		if !ok {
			continue
		}
		k := pairKey{w.Block, w.Length, w.Index}
		pair := byKey[k]
		lv := math.Log(v)
		if w.Side == "base" {
			pair[0] = &lv
		} else {
			pair[1] = &lv
		}
		byKey[k] = pair
	}
	perBlock := map[int][]float64{}
	for k, p := range byKey {
		if p[0] != nil && p[1] != nil {
			perBlock[k.block] = append(perBlock[k.block], *p[1]-*p[0])
		}
	}
	s := spread{blocks: len(perBlock), blockSD: math.NaN(), fromWindows: math.NaN(), between: math.NaN()}
	var ss, all float64
	var df int
	var means []float64
	var perBlockN float64
	for _, d := range perBlock {
		m := mean(d)
		means = append(means, m)
		for _, x := range d {
			ss += (x - m) * (x - m)
			all += x
		}
		df += len(d) - 1
		s.pairs += len(d)
		perBlockN += float64(len(d))
	}
	if s.pairs > 0 {
		s.mean = all / float64(s.pairs)
	}
	if df > 0 {
		s.pairSD = math.Sqrt(ss / float64(df))
	}
	if len(means) >= 2 {
		perBlockN /= float64(len(means))
		s.blockSD = sd(means)
		s.fromWindows = s.pairSD / math.Sqrt(perBlockN)
		s.between = math.Sqrt(math.Max(s.blockSD*s.blockSD-s.fromWindows*s.fromWindows, 0))
	}
	return s
}

func mean(x []float64) float64 {
	t := 0.0
	for _, v := range x {
		t += v
	}
	return t / float64(len(x))
}

func sd(x []float64) float64 {
	m := mean(x)
	t := 0.0
	for _, v := range x {
		t += (v - m) * (v - m)
	}
	return math.Sqrt(t / float64(len(x)-1))
}

func printTime(out io.Writer, blocks []Block) {
	if len(blocks) == 0 {
		return
	}
	stages := []string{"start", "reset", "verify", "drain", "setup", "warmup", "measured"}
	fmt.Fprintf(out, "Where a block's time went (median over %d blocks, seconds; load average %.1f … %.1f):\n", len(blocks), minLoad(blocks), maxLoad(blocks))
	total := 0.0
	med := map[string]float64{}
	for _, st := range stages {
		var v []float64
		for _, b := range blocks {
			v = append(v, b.Spent[st])
		}
		sort.Float64s(v)
		med[st] = v[len(v)/2]
		total += med[st]
	}
	for _, st := range stages {
		fmt.Fprintf(out, "  %-9s %6.2f s  %4.1f %%\n", st, med[st], 100*med[st]/total)
	}
}

func minLoad(b []Block) float64 {
	m := math.Inf(1)
	for _, x := range b {
		m = math.Min(m, x.Load1)
	}
	return m
}

func maxLoad(b []Block) float64 {
	m := math.Inf(-1)
	for _, x := range b {
		m = math.Max(m, x.Load1)
	}
	return m
}
