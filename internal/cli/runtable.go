package cli

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// tableMetrics are the columns of the run table, in order.
var tableMetrics = []string{
	result.IterationsPerSec, result.RequestsPerSec,
	result.LatencyP50, result.LatencyP90, result.LatencyP95, result.LatencyP99, result.LatencyMax,
	result.RequestErrorPct, result.LifecycleSuccess, result.DroppedPct,
	result.CPUPerIteration, result.PeakRSS,
}

// writeRunTable prints a row per run, then the median, min–max and CV of
// each metric across runs. Metrics no run has are left out.
func writeRunTable(w io.Writer, f *result.File) {
	cols := presentMetrics(f.Runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{"run"}
	for _, k := range cols {
		m, _ := result.Lookup(k)
		header = append(header, m.Label+unitSuffix(m))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for i, r := range f.Runs {
		row := []string{fmt.Sprint(i + 1)}
		for _, k := range cols {
			row = append(row, cell(r.Metrics, k))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	for _, s := range []struct {
		name string
		f    func([]float64) string
	}{
		{"median", func(v []float64) string { return num(stats.Median(v)) }},
		{"min–max", func(v []float64) string { return num(v[0]) + "–" + num(v[len(v)-1]) }},
		{"CV", func(v []float64) string { return fmt.Sprintf("%.1f%%", 100*cv(v)) }},
	} {
		row := []string{s.name}
		for _, k := range cols {
			vals := values(f.Runs, k)
			if len(vals) == 0 {
				row = append(row, "–")
				continue
			}
			row = append(row, s.f(vals))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
}

func presentMetrics(runs []result.Run) []string {
	var cols []string
	for _, k := range tableMetrics {
		if len(values(runs, k)) > 0 {
			cols = append(cols, k)
		}
	}
	return cols
}

// values returns a metric's values across runs, sorted.
func values(runs []result.Run, key string) []float64 {
	var v []float64
	for _, r := range runs {
		if x, ok := r.Metrics[key]; ok {
			v = append(v, x)
		}
	}
	sort.Float64s(v)
	return v
}

func unitSuffix(m result.Metric) string {
	if m.Unit == "" || m.Unit == "/s" {
		return ""
	}
	return " " + m.Unit
}

func cell(m map[string]float64, key string) string {
	v, ok := m[key]
	if !ok {
		return "–"
	}
	return num(v)
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func cv(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	var sum, sq float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	if mean == 0 {
		return 0
	}
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	return math.Sqrt(sq/float64(len(v)-1)) / mean
}
