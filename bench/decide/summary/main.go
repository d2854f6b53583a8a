// Command summary tables a bench/decide/run.sh series: per arm (A/A,
// slow10, slow30) and machine (quiet, with the noisy neighbour) the
// verdicts, the wall time and blocks to a verdict and the change in CPU
// per iteration, as median [min–max]; which metric decided the
// regressions; and the bars of issue 19 (A/A ≥ 18 of 20 pass and ≤ 1
// regression, +10 % ≥ 18 of 20 regression and none pass, +30 % 20 of 20,
// median verdict ≤ 90 s), scaled to the jobs the series has; and per
// machine the A/A blocks' spread (spread).
//
//	go run ./bench/decide/summary bench/out/decide/pocketbase-<time>
package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

type report struct {
	Verdict     string   `json:"verdict"`
	Regressions []string `json:"regressions"`
	Notes       []string `json:"notes"`
	Sequential  *struct {
		Blocks   int    `json:"pairs"`
		Unit     string `json:"unit"`
		RunPairs int    `json:"run_pairs"`
	} `json:"sequential"`
	Runs struct {
		Base []map[string]float64 `json:"base"`
		Head []map[string]float64 `json:"head"`
	} `json:"runs"`
	Metrics []struct {
		Key     string   `json:"key"`
		Label   string   `json:"label"`
		Gated   bool     `json:"gated"`
		Change  *float64 `json:"change"`
		Verdict string   `json:"verdict"`
	} `json:"metrics"`
}

type job struct {
	arm     string
	design  string // "default", or the --design of a DESIGNS series
	noisy   bool
	code    int
	seconds float64
	load    float64
	rep     *report
}

func (j job) verdict() string {
	if j.rep == nil {
		return fmt.Sprintf("error (exit %d)", j.code)
	}
	return j.rep.Verdict
}

func (j job) change(key string) (float64, bool) {
	if j.rep == nil {
		return 0, false
	}
	for _, m := range j.rep.Metrics {
		if m.Key == key && m.Change != nil {
			return *m.Change, true
		}
	}
	return 0, false
}

func (j job) pooled() bool {
	if j.rep == nil {
		return false
	}
	for _, n := range j.rep.Notes {
		if strings.HasPrefix(n, "noise: pooled") {
			return true
		}
	}
	return false
}

// ran is how the job measured, as its report's notes say: its blocks'
// phases "at once", "alternating" or "mixed" (older reports: the design
// they name, "duet design: …"), else "pairs" of whole runs.
func (j job) ran() string {
	if j.rep == nil {
		return "pairs"
	}
	for _, n := range j.rep.Notes {
		if m := ranNote.FindStringSubmatch(n); m != nil {
			return m[1]
		}
		if blockNote.MatchString(n) {
			alt, once := strings.Contains(n, "alternating between the sides"), strings.Contains(n, "both sides loaded at the same time")
			switch {
			case alt && once:
				return "mixed"
			case alt:
				return "alternating"
			}
			return "at once"
		}
	}
	return "pairs"
}

// busy is how many cores other processes kept busy before the first
// block, as the job saw it.
func (j job) busy() (float64, bool) {
	if j.rep == nil {
		return 0, false
	}
	for _, n := range j.rep.Notes {
		if m := autoNote.FindStringSubmatch(n); m != nil {
			return atof(m[1]), true
		}
	}
	return 0, false
}

var (
	ranNote   = regexp.MustCompile(`^(duet|interleaved|hybrid) design: `)
	blockNote = regexp.MustCompile(`^\d+ blocks? of at most \d+ in [0-9hms.]+; in each block`)
	autoNote  = regexp.MustCompile(`^(?:design auto: \w+(?: \(.*?\))?|closed phases [^,]*), as .*?(\d+\.\d+) of (?:the machine's )?\d+ cores busy`)
)

// designsRan prints which design each machine's jobs ran in and, where
// their reports say it (before 2026-12), how busy the machine was before
// their first block.
func designsRan(jobs []job) {
	for _, noisy := range []bool{false, true} {
		ran := map[string]int{}
		var js []job
		for _, j := range jobs {
			if j.noisy == noisy {
				ran[j.ran()]++
				js = append(js, j)
			}
		}
		if len(js) == 0 {
			continue
		}
		busy := ""
		if b := mmm(js, job.busy, "%.2f"); b != "—" { // reports before 2026-12: the machine watch's note
			busy = "; busy cores before block 1 " + b
		}
		fmt.Printf("%s: ran %s%s\n", map[bool]string{false: "quiet", true: "hog"}[noisy], tally(ran), busy)
	}
	fmt.Println()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: summary DIR")
		os.Exit(2)
	}
	jobs, err := read(filepath.Join(os.Args[1], "jobs"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(2)
	}
	if len(jobs) == 0 {
		fmt.Fprintln(os.Stderr, "summary: no jobs in", os.Args[1])
		os.Exit(2)
	}
	var designs []string
	for _, j := range jobs {
		if !slices.Contains(designs, j.design) {
			designs = append(designs, j.design)
		}
	}
	slices.Sort(designs)
	for _, d := range designs {
		var js []job
		for _, j := range jobs {
			if j.design == d {
				js = append(js, j)
			}
		}
		if len(designs) > 1 {
			fmt.Printf("### design: %s\n\n", d)
		}
		table(js)
		designsRan(js)
		bars(js)
		issue46(js, os.Args[1])
		spread(js)
		blockTimes(js)
		fmt.Println()
	}
}

// table prints the verdicts per arm and machine, and how many jobs
// pooled stored noise.
func table(jobs []job) {
	arms := armsOf(jobs)
	fmt.Printf("%-7s %-6s %4s  %-40s %-22s %-16s %-26s %s\n", "arm", "hog", "jobs", "verdicts", "wall s", "blocks", "CPU/iteration change %", "decided by")
	for _, arm := range arms {
		for _, sel := range []struct {
			name string
			f    func(job) bool
		}{{"no", func(j job) bool { return !j.noisy }}, {"yes", func(j job) bool { return j.noisy }}, {"all", func(job) bool { return true }}} {
			var js []job
			for _, j := range jobs {
				if j.arm == arm && sel.f(j) {
					js = append(js, j)
				}
			}
			if len(js) == 0 {
				continue
			}
			fmt.Printf("%-7s %-6s %4d  %-40s %-22s %-16s %-26s %s\n", arm, sel.name, len(js), counts(js), mmm(js, func(j job) (float64, bool) { return j.seconds, true }, "%.0f"),
				mmm(js, func(j job) (float64, bool) {
					if j.rep == nil || j.rep.Sequential == nil {
						return 0, false
					}
					return float64(j.rep.Sequential.Blocks), true
				}, "%.0f"),
				mmm(js, func(j job) (float64, bool) { return j.change("cpu_ms_per_iteration") }, "%+.1f"), decidedBy(js))
		}
	}
	pooled := 0
	for _, j := range jobs {
		if j.pooled() {
			pooled++
		}
	}
	fmt.Printf("\n%d of %d jobs pooled stored noise (the others used their own); load average at job start %s\n\n", pooled, len(jobs),
		mmm(jobs, func(j job) (float64, bool) { return j.load, true }, "%.1f"))
}

func read(dir string) ([]job, error) {
	codes, err := filepath.Glob(filepath.Join(dir, "*.code"))
	if err != nil {
		return nil, err
	}
	var out []job
	for _, c := range codes {
		base := strings.TrimSuffix(c, ".code")
		name := filepath.Base(base)
		name = name[:strings.LastIndexByte(name, '-')] // [design-]arm
		design := cmp.Or(readTrim(base+".design"), "default")
		arm := strings.TrimPrefix(name, design+"-")
		j := job{arm: arm, design: design, code: atoi(readTrim(c)), seconds: atof(readTrim(base + ".time")), noisy: readTrim(base+".noisy") == "1", load: atof(readTrim(base + ".load0"))}
		if data, err := os.ReadFile(base + ".report.json"); err == nil {
			var r report
			if err := json.Unmarshal(data, &r); err != nil {
				return nil, fmt.Errorf("%s: %w", base+".report.json", err)
			}
			j.rep = &r
		}
		out = append(out, j)
	}
	return out, nil
}

func readTrim(path string) string {
	data, _ := os.ReadFile(path)
	return strings.TrimSpace(string(data))
}

func atoi(s string) int {
	v, _ := strconv.Atoi(s)
	return v
}

func atof(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

func counts(js []job) string {
	c := map[string]int{}
	for _, j := range js {
		c[j.verdict()]++
	}
	return tally(c)
}

// tally is "key n, key n, …" in key order.
func tally(c map[string]int) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

// mmm is "median [min–max]" of the values f gives, with "(k of n)" when
// some jobs have none.
func mmm(js []job, f func(job) (float64, bool), format string) string {
	var v []float64
	for _, j := range js {
		if x, ok := f(j); ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return "—"
	}
	med := median(v)
	s := fmt.Sprintf(format+" ["+format+"–"+format+"]", med, v[0], v[len(v)-1])
	if len(v) < len(js) {
		s += fmt.Sprintf(" (%d of %d)", len(v), len(js))
	}
	return s
}

func decidedBy(js []job) string {
	c := map[string]int{}
	for _, j := range js {
		if j.rep == nil {
			continue
		}
		for _, r := range j.rep.Regressions {
			c[r]++
		}
	}
	if len(c) == 0 {
		return "—"
	}
	return tally(c)
}

// knownArms are the arms of the drivers, in the order tables list them;
// an arm a driver adds later comes after them.
var knownArms = []string{"aa", "slow5", "slow10", "slow30", "n1", "noidx"}

// armsOf is the arms the jobs ran, known ones first.
func armsOf(jobs []job) []string {
	var out []string
	for _, a := range knownArms {
		if slices.ContainsFunc(jobs, func(j job) bool { return j.arm == a }) {
			out = append(out, a)
		}
	}
	for _, j := range jobs {
		if !slices.Contains(out, j.arm) {
			out = append(out, j.arm)
		}
	}
	return out
}

// bars checks issue 19's bars, scaled from 20 jobs to the jobs there are;
// the database regressions (issue 36: n1, noidx) have +10 %'s bar.
func bars(jobs []job) {
	by := map[string][]job{}
	for _, j := range jobs {
		by[j.arm] = append(by[j.arm], j)
	}
	count := func(arm, verdict string) (int, int) {
		k := 0
		for _, j := range by[arm] {
			if j.verdict() == verdict {
				k++
			}
		}
		return k, len(by[arm])
	}
	check := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	scaled := func(of20, n int) int { return int(math.Ceil(float64(of20) * float64(n) / 20)) }
	// An arm the series did not run (ARMS) has no bar.
	if p, n := count("aa", "pass"); n > 0 {
		r, _ := count("aa", "regression")
		fmt.Printf("bar A/A: ≥ 18 of 20 pass (%d of %d here), ≤ 1 regression: %d pass, %d regression of %d: %s\n", scaled(18, n), n, p, r, n, check(p >= scaled(18, n) && r <= max(1, n/20)))
	}
	if r, n := count("slow10", "regression"); n > 0 {
		p, _ := count("slow10", "pass")
		fmt.Printf("bar +10 %%: ≥ 18 of 20 regression, none pass: %d regression, %d pass of %d: %s\n", r, p, n, check(r >= scaled(18, n) && p == 0))
	}
	for _, arm := range []string{"n1", "noidx"} {
		if r, n := count(arm, "regression"); n > 0 {
			p, _ := count(arm, "pass")
			fmt.Printf("bar %s: ≥ 18 of 20 regression, none pass: %d regression, %d pass of %d: %s\n", arm, r, p, n, check(r >= scaled(18, n) && p == 0))
		}
	}
	if r, n := count("slow30", "regression"); n > 0 {
		fmt.Printf("bar +30 %%: every job a regression: %d of %d: %s\n", r, n, check(r == n))
	}
	med := mmm(jobs, func(j job) (float64, bool) { return j.seconds, true }, "%.0f")
	var secs []float64
	for _, j := range jobs {
		secs = append(secs, j.seconds)
	}
	m := median(secs)
	fmt.Printf("bar median verdict ≤ 90 s: %s s over all %d jobs: %s\n", med, len(jobs), check(m <= 90))
}

// spread prints, per machine, how the A/A jobs' blocks spread: the median
// over jobs of the SD of a job's blocks' log differences (head against
// base, %), and the SD of the jobs' mean differences beside what those
// block spreads predict for it. A larger SD of the means is a difference
// between the sides that lasts a job, but only in jobs of a fixed number
// of blocks (bench/decide/fixed.sh): a sequential job stops early when
// its first blocks agree, which widens its mean alone. Beside them the
// CPU each side got (iterations/s × CPU per iteration, the path's when
// measured): in a duet, throughput's spread that this one shares and CPU
// per iteration does not is the two sides' share of the machine moving
// from block to block, not the builds.
func spread(jobs []job) {
	for _, noisy := range []bool{false, true} {
		for _, m := range spreadMeasures {
			var sds, means []float64
			predicted := 0.0
			name := ""
			for _, j := range jobs {
				if j.arm != "aa" || j.noisy != noisy || j.rep == nil {
					continue
				}
				var d []float64
				for i := range min(len(j.rep.Runs.Base), len(j.rep.Runs.Head)) {
					b, bok := m.value(j.rep.Runs.Base[i])
					h, hok := m.value(j.rep.Runs.Head[i])
					if bok && hok && b > 0 && h > 0 {
						d = append(d, 100*math.Log(h/b))
					}
				}
				if len(d) < 2 {
					continue
				}
				name = m.name(j.rep.Runs.Base[0])
				mean, sd := meanSD(d)
				sds, means = append(sds, sd), append(means, mean)
				predicted += sd * sd / float64(len(d))
			}
			if len(means) < 2 {
				continue
			}
			_, sdMeans := meanSD(means)
			fmt.Printf("A/A %s, %s: blocks' SD %.1f %% (median of %d jobs); SD of job means %.1f %%, the blocks predict %.1f %%\n",
				map[bool]string{false: "quiet", true: "hog"}[noisy], name, median(sds), len(sds), sdMeans, math.Sqrt(predicted/float64(len(means))))
		}
	}
}

// blockTimes prints what a block cost with every phase and with a phase
// left out (ab.phases: undecided), by least squares over the jobs' wall
// time of their blocks (the report's design note) on their whole and lean
// blocks (its "left out of K of N blocks" note); nothing when no job left
// a phase out.
func blockTimes(jobs []job) {
	var a, b, c, u, v float64 // normal equations of secs ≈ whole·x + lean·y
	var whole, lean int
	for _, j := range jobs {
		if j.rep == nil {
			continue
		}
		n, secs, k, ok := blockNotes(j.rep.Notes)
		if !ok {
			continue
		}
		x, y := float64(n-k), float64(k)
		a, b, c, u, v = a+x*x, b+x*y, c+y*y, u+x*secs, v+y*secs
		whole, lean = whole+n-k, lean+k
	}
	det := a*c - b*b
	if lean == 0 || det <= 0 {
		return
	}
	fmt.Printf("a block took %.1f s with every phase, %.1f s with one left out (least squares over the jobs: %d whole blocks, %d lean)\n",
		(u*c-b*v)/det, (a*v-b*u)/det, whole, lean)
}

var (
	designNote  = regexp.MustCompile(`^(?:(?:duet|interleaved|hybrid) design: )?(\d+) blocks? of at most \d+ in ([0-9hms.]+);`)
	leftOutNote = regexp.MustCompile(`was left out of (\d+) of \d+ blocks`)
)

// blockNotes reads a block job's report notes: its blocks, their wall
// time in seconds, and the blocks that left a phase out.
func blockNotes(notes []string) (blocks int, secs float64, lean int, ok bool) {
	for _, n := range notes {
		if m := designNote.FindStringSubmatch(n); m != nil {
			d, err := time.ParseDuration(m[2])
			if err != nil {
				return 0, 0, 0, false
			}
			blocks, secs, ok = atoi(m[1]), d.Seconds(), true
		}
		if m := leftOutNote.FindStringSubmatch(n); m != nil {
			lean = atoi(m[1])
		}
	}
	return blocks, secs, lean, ok
}

// spreadMeasure is a figure of a block run that spread reports.
type spreadMeasure struct {
	name  func(run map[string]float64) string
	value func(run map[string]float64) (float64, bool)
}

var spreadMeasures = []spreadMeasure{metricMeasure("iterations_per_s"), metricMeasure("cpu_ms_per_iteration"), metricMeasure("latency_p95_ms"), {
	name: func(run map[string]float64) string { return "CPU share (iterations/s × " + cpuKey(run) + ")" },
	value: func(run map[string]float64) (float64, bool) {
		t, tok := run["iterations_per_s"]
		c, cok := run[cpuKey(run)]
		return t * c, tok && cok
	},
}}

func metricMeasure(key string) spreadMeasure {
	return spreadMeasure{
		name:  func(map[string]float64) string { return key },
		value: func(run map[string]float64) (float64, bool) { v, ok := run[key]; return v, ok },
	}
}

// cpuKey is the CPU per iteration of the whole request path where the run
// measured it (target.measure), else the target's own.
func cpuKey(run map[string]float64) string {
	if _, ok := run["path_cpu_ms_per_iteration"]; ok {
		return "path_cpu_ms_per_iteration"
	}
	return "cpu_ms_per_iteration"
}

// meanSD is the mean and the sample SD of xs (at least 2).
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

// median is the median of xs (not empty), which it sorts.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return m
}

// issue46 prints issue 46's bars, scaled from 20 jobs to the jobs there
// are (A/A ≥ 19 of 20 pass and no regression; +5 % ≥ 18 of 20 regression
// within 150 s and none pass; +10 % every job; A/A median ≤ 90 s beside
// the hog, ≤ 70 s without), the A/A jobs' lean (mean and standard error
// of their estimates) and each slow arm's median estimates beside the
// peer tool's median effect (DIR/effects.tsv, columns SLOW_pct).
func issue46(jobs []job, dir string) {
	by := map[string][]job{}
	for _, j := range jobs {
		by[j.arm] = append(by[j.arm], j)
	}
	count := func(arm string, f func(job) bool) int {
		k := 0
		for _, j := range by[arm] {
			if f(j) {
				k++
			}
		}
		return k
	}
	is := func(v string) func(job) bool { return func(j job) bool { return j.verdict() == v } }
	check := map[bool]string{true: "met", false: "NOT met"}
	scaled := func(of20, n int) int { return int(math.Ceil(float64(of20) * float64(n) / 20)) }
	if n := len(by["aa"]); n > 0 {
		p, r := count("aa", is("pass")), count("aa", is("regression"))
		fmt.Printf("issue 46 A/A: ≥ 19 of 20 pass (%d of %d here), none a regression: %d pass, %d regression: %s\n", scaled(19, n), n, p, r, check[p >= scaled(19, n) && r == 0])
		for _, noisy := range []bool{true, false} {
			limit := map[bool]float64{true: 90, false: 70}[noisy]
			var secs []float64
			for _, j := range by["aa"] {
				if j.noisy == noisy {
					secs = append(secs, j.seconds)
				}
			}
			if len(secs) > 0 {
				fmt.Printf("issue 46 A/A median wall ≤ %.0f s (%s): %.0f s over %d jobs: %s\n", limit, map[bool]string{true: "hog", false: "quiet"}[noisy], median(secs), len(secs), check[median(secs) <= limit])
			}
		}
		for _, key := range []string{"cpu_ms_per_iteration", "iterations_per_s"} {
			var v []float64
			for _, j := range by["aa"] {
				if x, ok := j.change(key); ok {
					v = append(v, x)
				}
			}
			if len(v) > 1 {
				mean, ss := 0.0, 0.0
				for _, x := range v {
					mean += x / float64(len(v))
				}
				for _, x := range v {
					ss += (x - mean) * (x - mean)
				}
				fmt.Printf("A/A lean, %s: mean %+.2f %%, standard error %.2f %% (%d jobs)\n", key, mean, math.Sqrt(ss/float64(len(v)-1)/float64(len(v))), len(v))
			}
		}
	}
	if n := len(by["slow5"]); n > 0 {
		r := count("slow5", func(j job) bool { return j.verdict() == "regression" && j.seconds <= 150 })
		p := count("slow5", is("pass"))
		fmt.Printf("issue 46 +5 %%: ≥ 18 of 20 a regression within 150 s (%d of %d here), none pass: %d within 150 s, %d pass: %s\n", scaled(18, n), n, r, p, check[r >= scaled(18, n) && p == 0])
	}
	if n := len(by["slow10"]); n > 0 {
		r := count("slow10", is("regression"))
		fmt.Printf("issue 46 +10 %%: every job a regression: %d of %d: %s\n", r, n, check[r == n])
	}
	peer := map[string][]float64{}
	if data, err := os.ReadFile(filepath.Join(dir, "effects.tsv")); err == nil {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		head := strings.Split(lines[0], "\t")
		for _, l := range lines[1:] {
			for i, f := range strings.Split(l, "\t") {
				if i < len(head) && strings.HasSuffix(head[i], "_pct") {
					peer[strings.TrimSuffix(head[i], "_pct")] = append(peer[strings.TrimSuffix(head[i], "_pct")], atof(f))
				}
			}
		}
	}
	for _, arm := range []string{"slow5", "slow10", "slow30"} {
		if len(by[arm]) == 0 {
			continue
		}
		est := func(key string) string {
			return mmm(by[arm], func(j job) (float64, bool) { return j.change(key) }, "%+.1f")
		}
		line := fmt.Sprintf("%s estimates: CPU/iteration %s %%, iterations/s %s %%", arm, est("cpu_ms_per_iteration"), est("iterations_per_s"))
		if p := peer[arm]; len(p) > 0 {
			slices.Sort(p)
			line += fmt.Sprintf("; the peer tool's effect %+.1f [%+.1f–%+.1f] %% over %d rounds", median(p), p[0], p[len(p)-1], len(p))
		}
		fmt.Println(line)
	}
	fmt.Println()
}
