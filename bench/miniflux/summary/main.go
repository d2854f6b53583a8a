// Command summary turns the jobs of bench/miniflux/evidence.sh into the
// tables of bench/miniflux/README.md: per arm, the verdicts, which gated
// metric caught the regression and how much each key metric moved; and
// the run-to-run noise (CV within one side of one job) of every footprint
// metric beside that of CPU time, from the clean sides (every job's base,
// the A/A jobs' head).
//
//	go run ./bench/miniflux/summary bench/out/miniflux/evidence-<time>...
//
// Several directories are pooled.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/stats"
)

var arms = []string{"aa", "n1", "noidx", "aa-time", "n1-time", "noidx-time"}

// keyMetrics are the metrics whose change the first table shows.
var keyMetrics = []string{"iterations_per_s", "latency_p95_ms", "cpu_ms_per_iteration", "path_cpu_ms_per_iteration",
	"part.postgres.cpu_ms_per_iteration", "counter.pg.calls", "counter.pg.blocks", "counter.pg.rows",
	"counter.app.go_memstats_mallocs_total"}

type report struct {
	Runs struct {
		Base []map[string]float64 `json:"base"`
		Head []map[string]float64 `json:"head"`
	} `json:"runs"`
	Verdict     string   `json:"verdict"`
	Regressions []string `json:"regressions"`
	HeadRuns    int      `json:"head_runs"`
	Metrics     []struct {
		Key     string   `json:"key"`
		Change  *float64 `json:"change"`
		Verdict string   `json:"verdict"`
		Gated   bool     `json:"gated"`
	} `json:"metrics"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: summary EVIDENCE-DIR...")
		os.Exit(2)
	}
	dirs := os.Args[1:]
	walls := map[string]float64{}
	for _, dir := range dirs {
		maps.Copy(walls, wallTimes(dir, filepath.Join(dir, "jobs.txt")))
	}
	fmt.Println("## Verdicts per arm")
	fmt.Println()
	for _, arm := range arms {
		summarizeArm(dirs, arm, walls)
	}
	fmt.Println("## Noise: CV of each metric across the runs of one clean side of one job")
	fmt.Println()
	noise(dirs)
	fmt.Println()
	fmt.Println("## Noise of the pairs: SD of 100·ln(head/base) over the pairs of the A/A jobs (gated metrics)")
	fmt.Println()
	pairNoise(dirs)
}

// glob is the files matching pattern in any of dirs.
func glob(dirs []string, pattern string) []string {
	var out []string
	for _, d := range dirs {
		m, _ := filepath.Glob(filepath.Join(d, pattern))
		out = append(out, m...)
	}
	return out
}

// pairNoise pools the A/A jobs' pairs: the spread a sequential A/B judges
// each gated metric against.
func pairNoise(dirs []string) {
	files := glob(dirs, "aa-*.json") // and aa-time-*: the same sides
	diffs := map[string][]float64{}
	for _, f := range files {
		var r report
		data, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(data, &r) != nil {
			continue
		}
		for i := range min(len(r.Runs.Base), len(r.Runs.Head)) {
			for k, b := range r.Runs.Base[i] {
				if h, ok := r.Runs.Head[i][k]; ok && b > 0 && h > 0 {
					diffs[k] = append(diffs[k], 100*math.Log(h/b))
				}
			}
		}
	}
	fmt.Println("| metric | pairs | mean | SD |")
	fmt.Println("|---|---|---|---|")
	for _, k := range slices.Sorted(maps.Keys(diffs)) {
		d := diffs[k]
		if len(d) < 2 {
			continue
		}
		fmt.Printf("| %s | %d | %+.1f %% | %.1f %% |\n", k, len(d), stats.Mean(d), stats.SampleSD(d))
	}
}

func summarizeArm(dirs []string, arm string, walls map[string]float64) {
	files := slices.DeleteFunc(glob(dirs, arm+"-*.json"), func(f string) bool { // n1-* holds n1-time-*
		_, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), arm+"-"), ".json"))
		return err != nil
	})
	if len(files) == 0 {
		return
	}
	verdicts := map[string]int{}
	caught := map[string]int{}
	changes := map[string][]float64{}
	outcomes := map[string]map[string]int{}
	var pairs, wall []float64
	for _, f := range files {
		var r report
		data, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(data, &r) != nil {
			verdicts["unreadable"]++
			continue
		}
		verdicts[r.Verdict]++
		for _, k := range r.Regressions {
			caught[k]++
		}
		pairs = append(pairs, float64(r.HeadRuns))
		if w, ok := walls[strings.TrimSuffix(f, ".json")]; ok {
			wall = append(wall, w)
		}
		for _, m := range r.Metrics {
			if m.Change != nil {
				changes[m.Key] = append(changes[m.Key], *m.Change)
			}
			if outcomes[m.Key] == nil {
				outcomes[m.Key] = map[string]int{}
			}
			outcomes[m.Key][m.Verdict]++
		}
	}
	fmt.Printf("### %s: %d jobs\n\n", arm, len(files))
	fmt.Printf("- verdicts: %s\n", counts(verdicts))
	fmt.Printf("- regressions by metric: %s\n", counts(caught))
	fmt.Printf("- pairs: %s; wall time: %s s\n\n", spread(pairs, "%.0f"), spread(wall, "%.0f"))
	fmt.Println("| metric | change, median [min–max] | outcomes |")
	fmt.Println("|---|---|---|")
	for _, k := range keyMetrics {
		if v := changes[k]; len(v) > 0 {
			fmt.Printf("| %s | %s %% | %s |\n", k, spread(v, "%+.1f"), counts(outcomes[k]))
		}
	}
	fmt.Println()
}

// noise reads the footprint tables of the clean sides.
func noise(dirs []string) {
	cvs := map[string][]float64{}
	var order []string
	files := glob(dirs, "*-*.txt")
	for _, f := range files {
		arm, _, _ := strings.Cut(filepath.Base(f), "-")
		for side, rows := range footprintTables(f) {
			if side == "head" && arm != "aa" { // aa-1, aa-time-1
				continue // a head with an injected regression is not a clean side
			}
			for k, cv := range rows {
				if !slices.Contains(order, k) {
					order = append(order, k)
				}
				cvs[k] = append(cvs[k], cv)
			}
		}
	}
	slices.SortFunc(order, func(a, b string) int { return strings.Compare(noiseOrder(a), noiseOrder(b)) })
	fmt.Println("| metric | clean sides | CV, median [min–max] |")
	fmt.Println("|---|---|---|")
	for _, k := range order {
		fmt.Printf("| %s | %d | %s %% |\n", k, len(cvs[k]), spread(cvs[k], "%.1f"))
	}
}

// noiseOrder sorts the target's CPU first, then the path's, then the
// counters, then the parts' figures.
func noiseOrder(k string) string {
	switch {
	case k == "cpu_ms_per_iteration":
		return "0"
	case k == "path_cpu_ms_per_iteration":
		return "1"
	case strings.HasPrefix(k, "counter."):
		return "2" + k
	}
	return "3" + k
}

var sideLine = regexp.MustCompile(`^(base|head):$`)

// footprintTables reads, per side, the CV column of the "footprint per
// iteration, across runs" table of a job's output.
func footprintTables(path string) map[string]map[string]float64 {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]map[string]float64{}
	side, inTable := "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case sideLine.MatchString(line):
			side, inTable = strings.TrimSuffix(line, ":"), false
		case strings.HasPrefix(line, "footprint per iteration"):
			inTable = true
		case inTable && strings.TrimSpace(line) == "":
			inTable = false
		case inTable && !strings.HasPrefix(line, "metric "):
			fields := strings.Fields(line)
			if len(fields) < 6 || side == "" {
				continue
			}
			cv, err := strconv.ParseFloat(strings.TrimSuffix(fields[5], "%"), 64)
			if err != nil {
				continue // "–": undefined (a mean of zero)
			}
			if out[side] == nil {
				out[side] = map[string]float64{}
			}
			out[side][fields[0]] = cv
		}
	}
	return out
}

// wallTimes reads evidence.sh's jobs.txt in dir: "<arm> <i> exit=<rc> <s>s …",
// by the job's path without extension.
func wallTimes(dir, path string) map[string]float64 {
	out := map[string]float64{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		if s, err := strconv.ParseFloat(strings.TrimSuffix(f[3], "s"), 64); err == nil {
			out[filepath.Join(dir, f[0]+"-"+f[1])] = s
		}
	}
	return out
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func spread(v []float64, format string) string {
	if len(v) == 0 {
		return "–"
	}
	s := slices.Sorted(slices.Values(v))
	return fmt.Sprintf(format+" ["+format+"–"+format+"]", stats.Median(s), s[0], s[len(s)-1])
}
