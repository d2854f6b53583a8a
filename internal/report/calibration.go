package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Calibration is what calibrate stored, and the check it is for.
type Calibration struct {
	Name, Path string
	Jobs       int // calibration jobs stored
	// Noise is the noise measured per metric key.
	Noise map[string]stats.Noise
	// The check the floors are for: Runs head runs against Samples
	// baseline samples from BaselineJobs jobs, at level Alpha with the
	// Gated metrics.
	Runs, Samples, BaselineJobs int
	Alpha                       float64
	Gated                       []string
	Warnings                    []stats.Warning
}

// WriteCalibration writes what calibrate stored and, per calibrated
// metric, the noise and the floor and detectable effect it implies for a
// check: the floor the gate computes (gate.CalibratedFloor), the
// detectable effect by the closed form.
func WriteCalibration(w io.Writer, c Calibration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "calibration of %s: %d jobs stored in %s\n\n", c.Name, c.Jobs, c.Path)
	n, m, k := c.Runs, c.Samples, len(c.Gated)
	fmt.Fprintf(&b, "for a check of %d runs against %d baseline samples from %d jobs (α = %g, %d gated metrics):\n", n, m, c.BaselineJobs, c.Alpha, k)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tσ within job\tσ between jobs\tfloor\tdetects (80 % power)\tgated")
	gated := map[string]bool{}
	for _, key := range c.Gated {
		gated[key] = true
	}
	for _, meta := range result.Metrics {
		nz, ok := c.Noise[meta.Key]
		if !ok {
			continue
		}
		se := stats.SE(nz, n, m, c.BaselineJobs, false)
		floor := gate.CalibratedFloor(meta, nz, n, m, c.BaselineJobs, k, c.Alpha)
		mde := stats.MDE(stats.MDEInput{SigmaW: nz.SigmaW, SE: se, Floor: floor, N: n, M: m, Alpha: c.Alpha})
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\n", meta.Label, sigma(meta, nz.SigmaW), sigma(meta, nz.SigmaB),
			worseEffect(meta, floor), worseEffect(meta, mde), gated[meta.Key])
	}
	tw.Flush()
	for _, warning := range c.Warnings {
		fmt.Fprintln(&b, "warning:", warning.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sigma(m result.Metric, s float64) string {
	if m.Scale == result.Percent {
		return fmt.Sprintf("%.2f pp", s)
	}
	return fmt.Sprintf("%.1f %%", 100*s)
}

// worseEffect shows a comparison-scale effect as the change in the bad
// direction: percentage points, a drop for higher-is-better metrics, else
// a rise.
func worseEffect(m result.Metric, l float64) string {
	switch {
	case math.IsNaN(l):
		return "–"
	case m.Scale == result.Percent:
		return fmt.Sprintf("%.2f pp", l)
	case m.Better == result.HigherIsBetter:
		return fmt.Sprintf("−%.1f %%", stats.FromScale(stats.Ratio, stats.LowerIsWorse, l))
	default:
		return fmt.Sprintf("+%.1f %%", stats.FromScale(stats.Ratio, stats.HigherIsWorse, l))
	}
}
