package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

var tableMetrics = []string{
	result.IterationsPerSec, result.RequestsPerSec,
	result.LatencyP50, result.LatencyP90, result.LatencyP95, result.LatencyP99, result.LatencyMax,
	result.RequestErrorPct, result.LifecycleSuccess, result.DroppedPct,
	result.CPUPerIteration, result.PeakRSS,
}

// WriteRunTable writes a row per run, then each metric's median, min–max and CV; metrics no run has are left out.
func WriteRunTable(w io.Writer, f *result.File) error {
	cols := slices.DeleteFunc(slices.Clone(tableMetrics), func(k string) bool { return len(result.Values(f.Runs, k)) == 0 })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(first string, cell func(k string) string) {
		fmt.Fprintln(tw, strings.Join(append([]string{first}, mapped(cols, cell)...), "\t")+"\t")
	}
	row("run", func(k string) string { m, _ := result.Lookup(k); return m.Label + unitSuffix(m) })
	for i, r := range f.Runs {
		row(fmt.Sprint(i+1), func(k string) string {
			if v, ok := r.Metrics[k]; ok {
				return tableNumber(v)
			}
			return "–"
		})
	}
	row("median", func(k string) string { return tableNumber(stats.Median(sortedValues(f.Runs, k))) })
	row("min–max", func(k string) string {
		v := sortedValues(f.Runs, k)
		return tableNumber(v[0]) + "–" + tableNumber(v[len(v)-1])
	})
	row("CV", func(k string) string { return fmt.Sprintf("%.1f%%", 100*stats.CV(sortedValues(f.Runs, k))) })
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
		cv := "–" // undefined: one run, or a mean of zero
		if len(vals) > 1 && stats.Mean(vals) != 0 {
			cv = fmt.Sprintf("%.1f%%", 100*stats.CV(vals))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s–%s\t%s\t\n", k, m.Unit, len(vals), tableNumber(stats.Median(vals)),
			tableNumber(vals[0]), tableNumber(vals[len(vals)-1]), cv)
	}
	return tw.Flush()
}

func sortedValues(runs []result.Run, key string) []float64 {
	return slices.Sorted(slices.Values(result.Values(runs, key)))
}

func unitSuffix(m result.Metric) string {
	if m.Unit == "" || m.Unit == "/s" {
		return ""
	}
	return " " + m.Unit
}

func tableNumber(v float64) string { return fixed(v, 100, 10) }

// Calibration is what calibrate stored, and the check it is for.
type Calibration struct {
	Name, Path string
	Jobs       int // calibration jobs stored
	Noise      map[string]stats.Noise
	// The check the floors are for: Runs head runs against Samples
	// baseline samples from BaselineJobs jobs, at Alpha, Gated metrics.
	Runs, Samples, BaselineJobs int
	Alpha                       float64
	Gated                       []string
	// SetByLoad are the metric keys the measured runs say their load
	// fixes: never gated, so no floor or detectable effect is shown.
	SetByLoad []string
	Warnings  []stats.Warning
}

// WriteCalibration writes what calibrate stored and, per metric, the noise and the floor (gate.CalibratedFloor) and
// detectable effect it implies for a check; none for a metric set by the load or without noise.
func WriteCalibration(w io.Writer, c Calibration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "calibration of %s: %d jobs stored in %s\n\n", c.Name, c.Jobs, c.Path)
	gated := map[string]bool{}
	for _, key := range c.Gated {
		gated[key] = !slices.Contains(c.SetByLoad, key)
	}
	k := len(slices.DeleteFunc(slices.Collect(maps.Values(gated)), func(g bool) bool { return !g }))
	fmt.Fprintf(&b, "for a check of %d runs against %d baseline samples from %d %s (α = %g, %d gated metrics):\n", c.Runs, c.Samples, c.BaselineJobs, plural(c.BaselineJobs, "job", "jobs"), c.Alpha, k)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tσ within job\tσ between jobs\tfloor\tdetects (80 % power)\tgated")
	for _, meta := range result.Catalogue(slices.Collect(maps.Keys(c.Noise))...) {
		nz, ok := c.Noise[meta.Key]
		if !ok {
			continue
		}
		floor, detects := calibratedFigures(meta, nz, c, k)
		if slices.Contains(c.SetByLoad, meta.Key) {
			floor, detects = "–", "set by the load"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\n", meta.Label, sigma(meta, nz.SigmaW), sigma(meta, nz.SigmaB),
			floor, detects, gated[meta.Key])
	}
	tw.Flush()
	for _, warning := range c.Warnings {
		fmt.Fprintln(&b, "warning:", warning.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// calibratedFigures are the floor and detectable effect of noise nz for
// metric meta, one of k gated metrics, in check c.
func calibratedFigures(meta result.Metric, nz stats.Noise, c Calibration, k int) (floor, detects string) {
	n, m := c.Runs, c.Samples
	se := stats.SE(nz, n, m, c.BaselineJobs, false)
	l := gate.CalibratedFloor(meta, nz, n, m, c.BaselineJobs, k, c.Alpha)
	if nz.SigmaW < noVariation && nz.SigmaB < noVariation {
		return worseEffect(meta, l), "– (no variation)"
	}
	mde := stats.MDE(stats.MDEInput{SigmaW: nz.SigmaW, SE: se, Floor: l, N: n, M: m, Alpha: c.Alpha})
	return worseEffect(meta, l), worseEffect(meta, mde)
}

const noVariation = 1e-9

func sigma(m result.Metric, s float64) string {
	if points(m) {
		return fmt.Sprintf("%.2f pp", s)
	}
	return percentOf(s)
}

// worseEffect shows a comparison-scale effect as the change in the bad direction.
func worseEffect(m result.Metric, l float64) string {
	switch {
	case math.IsNaN(l):
		return "–"
	case points(m):
		return fmt.Sprintf("%.2f pp", l)
	case m.Better == result.HigherIsBetter:
		return fmt.Sprintf("−%.1f %%", stats.FromScale(stats.Ratio, stats.LowerIsWorse, l))
	default:
		return fmt.Sprintf("+%.1f %%", stats.FromScale(stats.Ratio, stats.HigherIsWorse, l))
	}
}
