// Command noisestat summarises the noise of repeated tailgate jobs for
// bench/pocketbase/noise.sh: how much runs vary inside a job, how much jobs
// differ from each other, and how much two processes of one build differ.
//
//	noisestat runs JOB.json...   # result files of `tailgate run -o`, one per job
//	noisestat pairs AB.txt...    # terminal output of `tailgate ab`, one per job
//
// runs prints, per metric, the run-to-run CV inside each job and the spread
// of the job medians. pairs reads the base and head run tables of each A/A
// job (pair i = base run i and head run i), and prints per metric the pairs'
// log differences: their spread inside a job (s_w), the mean of each job (the
// difference between that job's two processes), and whether those means
// differ between jobs by more than s_w/sqrt(pairs) explains, which is what a
// lasting difference between two processes looks like.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/stats"
)

// metric is a column noisestat reports: its result key and its label in
// tailgate's run table.
type metric struct{ key, label string }

var metrics = []metric{
	{"cpu_ms_per_iteration", "CPU/iteration ms"},
	{"iterations_per_s", "iterations/s"},
	{"latency_p95_ms", "latency p95 ms"},
}

func main() {
	if len(os.Args) < 3 || (os.Args[1] != "runs" && os.Args[1] != "pairs") {
		fmt.Fprintln(os.Stderr, "usage: noisestat runs JOB.json... | noisestat pairs AB.txt...")
		os.Exit(2)
	}
	var err error
	if os.Args[1] == "runs" {
		err = runs(os.Stdout, os.Args[2:])
	} else {
		err = pairs(os.Stdout, os.Args[2:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "noisestat:", err)
		os.Exit(1)
	}
}

// job is one job's runs: metric key → values in run order.
type job map[string][]float64

func runs(w io.Writer, files []string) error {
	var jobs []job
	for _, f := range files {
		j, err := readResult(f)
		if err != nil {
			return err
		}
		jobs = append(jobs, j)
	}
	fmt.Fprintf(w, "%d jobs\n", len(jobs))
	for _, m := range metrics {
		var cvs, medians []float64
		var per []string
		for _, j := range jobs {
			v := j[m.key]
			if len(v) < 2 {
				continue
			}
			cvs = append(cvs, 100*cv(v))
			medians = append(medians, stats.Median(v))
			per = append(per, fmt.Sprintf("%.1f", 100*cv(v)))
		}
		if len(cvs) == 0 {
			fmt.Fprintf(w, "  %-22s not available\n", m.key)
			continue
		}
		fmt.Fprintf(w, "  %-22s CV within a job %s %% (per job: %s); job medians %s, spread %.1f %% (max/min − 1)\n",
			m.key, mmm(cvs, "%.1f"), strings.Join(per, " "), mmm(medians, "%.3g"), 100*(slices.Max(medians)/slices.Min(medians)-1))
	}
	return nil
}

func readResult(path string) (job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Runs []struct {
			Metrics map[string]float64 `json:"metrics"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	j := job{}
	for _, r := range f.Runs {
		for k, v := range r.Metrics {
			j[k] = append(j[k], v)
		}
	}
	return j, nil
}

func pairs(w io.Writer, files []string) error {
	type abJob struct{ base, head job }
	var jobs []abJob
	for _, f := range files {
		b, h, err := readAB(f)
		if err != nil {
			return err
		}
		jobs = append(jobs, abJob{b, h})
	}
	fmt.Fprintf(w, "%d A/A jobs\n", len(jobs))
	for _, m := range metrics {
		var means, sds, all []float64
		var per []string
		var sumSq float64
		var dof int
		for _, j := range jobs {
			d := logDiffs(j.base[m.key], j.head[m.key])
			if len(d) == 0 {
				continue
			}
			all = append(all, d...)
			mu := stats.Mean(d)
			means = append(means, 100*mu)
			per = append(per, fmt.Sprintf("%+.1f", 100*mu))
			if len(d) > 1 {
				s := stats.SampleSD(d)
				sds = append(sds, 100*s)
				sumSq += s * s * float64(len(d)-1)
				dof += len(d) - 1
			}
		}
		if len(means) == 0 {
			fmt.Fprintf(w, "  %-22s not available\n", m.key)
			continue
		}
		n := float64(len(all)) / float64(len(means))
		fmt.Fprintf(w, "  %-22s head−base per job %s %% (per job: %s)\n", m.key, mmm(means, "%+.1f"), strings.Join(per, " "))
		fmt.Fprintf(w, "  %-22s all %d pairs pooled: mean %+.1f %%, sd %.1f %%\n", "", len(all), 100*stats.Mean(all), 100*stats.SampleSD(all))
		if dof > 0 && len(means) > 1 {
			sw := math.Sqrt(sumSq / float64(dof))
			expected := 100 * sw / math.Sqrt(n)
			between := stats.SampleSD(means)
			fmt.Fprintf(w, "  %-22s pairs' sd within a job s_w %.1f %% (per job %s); sd of the job means %.1f %% vs %.1f %% expected from s_w/sqrt(%.1f): ratio %.1f\n",
				"", 100*sw, mmm(sds, "%.1f"), between, expected, n, between/expected)
			if excess := between*between - expected*expected; excess > 0 {
				fmt.Fprintf(w, "  %-22s a lasting difference between two processes of about %.1f %% (sd) beyond the pair noise\n", "", math.Sqrt(excess))
			}
		}
	}
	return nil
}

// logDiffs returns ln(head/base) per pair, skipping pairs without both.
func logDiffs(base, head []float64) []float64 {
	var d []float64
	for i := 0; i < len(base) && i < len(head); i++ {
		if base[i] > 0 && head[i] > 0 {
			d = append(d, math.Log(head[i]/base[i]))
		}
	}
	return d
}

var sectionRE = regexp.MustCompile(`^(base|head):\s*$`)
var colSep = regexp.MustCompile(`\s{2,}`)

// readAB reads the base and head run tables of `tailgate ab` output.
func readAB(path string) (base, head job, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	tables := map[string]job{}
	var cur job
	var cols []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := sectionRE.FindStringSubmatch(line); m != nil {
			cur, cols = job{}, nil
			tables[m[1]] = cur
			continue
		}
		if cur == nil {
			continue
		}
		fields := colSep.Split(strings.TrimSpace(line), -1)
		switch {
		case len(fields) > 1 && fields[0] == "run":
			cols = fields
		case cols != nil && len(fields) == len(cols) && isInt(fields[0]):
			for i, c := range cols[1:] {
				for _, m := range metrics {
					if c == m.label {
						if v, err := strconv.ParseFloat(fields[i+1], 64); err == nil {
							cur[m.key] = append(cur[m.key], v)
						}
					}
				}
			}
		case cols != nil && fields[0] == "CV":
			cur, cols = nil, nil // end of this table
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if tables["base"] == nil || tables["head"] == nil {
		return nil, nil, errors.New(path + ": no base and head run tables (is it the output of tailgate ab without -q?)")
	}
	return tables["base"], tables["head"], nil
}

func isInt(s string) bool { _, err := strconv.Atoi(s); return err == nil }

func cv(v []float64) float64 { return stats.SampleSD(v) / stats.Mean(v) }

// mmm formats median [min–max].
func mmm(v []float64, f string) string {
	return fmt.Sprintf(f+" ["+f+"–"+f+"]", stats.Median(v), slices.Min(v), slices.Max(v))
}
