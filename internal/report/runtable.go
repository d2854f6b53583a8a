package report

import (
	"fmt"
	"io"
	"slices"
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

// WriteRunTable writes a row per run, then each metric's median, min–max
// and CV; metrics no run has are left out.
func WriteRunTable(w io.Writer, f *result.File) error {
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
		{"median", func(v []float64) string { return tableNumber(stats.Median(v)) }},
		{"min–max", func(v []float64) string { return tableNumber(v[0]) + "–" + tableNumber(v[len(v)-1]) }},
		{"CV", func(v []float64) string { return fmt.Sprintf("%.1f%%", 100*stats.CV(v)) }},
	} {
		row := []string{s.name}
		for _, k := range cols {
			vals := sortedValues(f.Runs, k)
			if len(vals) == 0 {
				row = append(row, "–")
				continue
			}
			row = append(row, s.f(vals))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeFootprintTable(w, f.Runs)
}

// writeFootprintTable writes, where runs measured parts or counters, a
// row per footprint metric beside CPU/iteration, with its noise.
func writeFootprintTable(w io.Writer, runs []result.Run) error {
	var keys []string
	for _, m := range result.Catalogue(result.KeysOf(runs)...) {
		if result.IsFootprint(m.Key) && len(result.Values(runs, m.Key)) > 0 {
			keys = append(keys, m.Key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nfootprint per iteration, across runs:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tunit\truns\tmedian\tmin–max\tCV\t")
	for _, k := range append([]string{result.CPUPerIteration}, keys...) {
		vals := sortedValues(runs, k)
		if len(vals) == 0 {
			continue
		}
		m, _ := result.Lookup(k)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s–%s\t%s\t\n", k, m.Unit, len(vals), tableNumber(stats.Median(vals)),
			tableNumber(vals[0]), tableNumber(vals[len(vals)-1]), cvCell(vals))
	}
	return tw.Flush()
}

// cvCell is the coefficient of variation, or "–" where it is undefined
// (one run, or a mean of zero).
func cvCell(vals []float64) string {
	if len(vals) < 2 || stats.Mean(vals) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*stats.CV(vals))
}

func presentMetrics(runs []result.Run) []string {
	var cols []string
	for _, k := range tableMetrics {
		if len(sortedValues(runs, k)) > 0 {
			cols = append(cols, k)
		}
	}
	return cols
}

// sortedValues returns a metric's values across runs, sorted.
func sortedValues(runs []result.Run, key string) []float64 {
	return slices.Sorted(slices.Values(result.Values(runs, key)))
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
	return tableNumber(v)
}

func tableNumber(v float64) string { return fixed(v, 100, 10) }
