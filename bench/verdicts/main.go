// Command verdicts runs a tailgate command many times and counts its
// verdicts: the evidence that the gate neither cries wolf on unchanged code
// nor misses a real regression on this machine.
//
//	go build -o /tmp/tailgate ./cmd/tailgate
//	go run ./bench/verdicts -bin /tmp/tailgate -n 20 -- demo --baseline /tmp/demo.json
//	go run ./bench/verdicts -bin /tmp/tailgate -n 20 -- demo --baseline /tmp/demo.json --slowdown 30%
//
// For each repetition it prints the exit code, the wall time, the pairs of
// a sequential A/B verdict, the verdict and the change of every gated
// metric; at the end the counts per verdict, the wall time and pairs as
// median [min–max] and, per gated metric, the median and range of the
// changes seen.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

type reportJSON struct {
	Verdict    string `json:"verdict"`
	Sequential *struct {
		Blocks int `json:"pairs"`
	} `json:"sequential"`
	Regressions []string `json:"regressions"`
	Metrics     []struct {
		Key         string   `json:"key"`
		Gated       bool     `json:"gated"`
		Change      *float64 `json:"change"`
		ChangeUnit  string   `json:"change_unit"`
		Floor       *float64 `json:"floor"`
		FloorSource string   `json:"floor_source"`
		P           *float64 `json:"p"`
		Verdict     string   `json:"verdict"`
	} `json:"metrics"`
	Detectable []struct {
		Key    string   `json:"key"`
		Effect *float64 `json:"effect"`
		Unit   string   `json:"unit"`
	} `json:"detectable"`
}

func main() {
	bin := flag.String("bin", "tailgate", "the tailgate binary")
	n := flag.Int("n", 20, "repetitions")
	timeout := flag.Duration("timeout", 5*time.Minute, "limit for one repetition")
	keep := flag.String("keep", "", "a folder to keep every repetition's report.json in (default: none kept)")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: verdicts [-bin tailgate] [-n 20] -- COMMAND ARGS...")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "verdicts")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	if *keep != "" {
		if err := os.MkdirAll(*keep, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		dir = *keep
	}
	counts := map[string]int{}
	changes := map[string][]float64{}
	units := map[string]string{}
	detects := map[string][]float64{}
	undetectable := map[string]int{}
	var walls, pairs []float64
	for i := 1; i <= *n; i++ {
		began := time.Now()
		rep, code, err := once(*bin, args, filepath.Join(dir, fmt.Sprintf("r%d.json", i)), *timeout)
		wall := time.Since(began).Seconds()
		if err != nil {
			fmt.Printf("%2d  exit %d  error: %v\n", i, code, err)
			counts["error"]++
			continue
		}
		counts[rep.Verdict]++
		walls = append(walls, wall)
		seq := ""
		if rep.Sequential != nil {
			pairs = append(pairs, float64(rep.Sequential.Blocks))
			seq = fmt.Sprintf("  %2d pairs", rep.Sequential.Blocks)
		}
		var parts []string
		for _, m := range rep.Metrics {
			if !m.Gated || m.Change == nil {
				continue
			}
			changes[m.Key] = append(changes[m.Key], *m.Change)
			units[m.Key] = m.ChangeUnit
			parts = append(parts, fmt.Sprintf("%s %+.1f%s (%s)", m.Key, *m.Change, m.ChangeUnit, m.Verdict))
		}
		for _, d := range rep.Detectable {
			if d.Effect == nil {
				undetectable[d.Key]++
				continue
			}
			detects[d.Key] = append(detects[d.Key], *d.Effect)
			units[d.Key] = d.Unit
		}
		fmt.Printf("%2d  exit %d  %6.1f s%s  %-12s %s\n", i, code, wall, seq, rep.Verdict, strings.Join(parts, ", "))
	}
	fmt.Printf("\nverdicts over %d runs of `tailgate %s`:", *n, strings.Join(args, " "))
	for _, v := range []string{"pass", "regression", "inconclusive", "error"} {
		fmt.Printf(" %s %d", v, counts[v])
	}
	fmt.Println()
	if len(walls) > 0 {
		fmt.Printf("  wall time %s s\n", spread(walls, "%.1f"))
	}
	if len(pairs) > 0 {
		fmt.Printf("  pairs     %s\n", spread(pairs, "%.0f"))
	}
	keys := make([]string, 0, len(changes))
	for k := range changes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := append([]float64(nil), changes[k]...)
		sort.Float64s(c)
		fmt.Printf("  %-24s change median %+.1f%s, range %+.1f … %+.1f\n", k, c[len(c)/2], units[k], c[0], c[len(c)-1])
	}
	fmt.Println("  what the reports said they could detect (80 % power):")
	for _, k := range keys {
		line := "not reliably in any"
		if len(detects[k]) > 0 {
			line = "≥ " + spread(detects[k], "%.1f") + units[k]
		}
		if undetectable[k] > 0 && len(detects[k]) > 0 {
			line += fmt.Sprintf(" (not reliably in %d)", undetectable[k])
		}
		fmt.Printf("  %-24s detects %s\n", k, line)
	}
}

// once runs the command with --report and -q and reads the report.
func once(bin string, args []string, report string, timeout time.Duration) (*reportJSON, int, error) {
	cmd := exec.Command(bin, append(append([]string(nil), args...), "-q", "--report", report)...)
	cmd.Stdout = nil
	var stderr strings.Builder
	cmd.Stderr = &stderr
	timer := time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	err := cmd.Run()
	timer.Stop()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return nil, -1, err
	}
	data, rerr := os.ReadFile(report)
	if rerr != nil {
		return nil, code, fmt.Errorf("no report (%v): %s", rerr, lastLine(stderr.String()))
	}
	var rep reportJSON
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, code, fmt.Errorf("reading the report: %w", err)
	}
	return &rep, code, nil
}

// spread is "median [min–max]".
func spread(x []float64, format string) string {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf(format+" ["+format+"–"+format+"]", med, s[0], s[len(s)-1])
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
