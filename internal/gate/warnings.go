package gate

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/plural"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// The codes of the warnings a Verdict carries beside those of stats.
const (
	WarnBadAlpha          stats.WarningCode = "bad_alpha"
	WarnDefinitionChanged stats.WarningCode = "definition_changed"
	WarnNoHeadRuns        stats.WarningCode = "no_head_runs"
	WarnNoBaseline        stats.WarningCode = "no_baseline"
	WarnEnvDiffers        stats.WarningCode = "env_differs"
	WarnUnknownMetric     stats.WarningCode = "unknown_metric"
	WarnDefaultFloors     stats.WarningCode = "default_floors"
	WarnOneSided          stats.WarningCode = "one_sided"
	WarnNothingCompared   stats.WarningCode = "nothing_compared"

	WarnFewCalibrationJobs stats.WarningCode = "few_calibration_jobs" // weak calibration (Context.CalibrationJobs,
	WarnCalibrationBunched stats.WarningCode = "calibration_bunched"  // CalibrationSpan)
	WarnBadDesign          stats.WarningCode = "bad_design"           // sequential A/B: the design cannot be used,
	WarnUnpaired           stats.WarningCode = "unpaired"             // or the pairs do not match
	WarnMissingInBlocks    stats.WarningCode = "missing_in_pairs"     // sequential A/B: a gated metric some pairs lack is inconclusive
	WarnMissingInRuns      stats.WarningCode = "missing_in_runs"      // stored baseline: judged on the runs that have it
	WarnRemoteTarget       stats.WarningCode = "remote_target"        // Context.RemoteTarget
	WarnCreep              stats.WarningCode = "creep"                // gate.creep: beyond the floor of an older reference, the bad way
)

// fixedTexts are the messages of the warnings whose text never varies.
var fixedTexts = map[stats.WarningCode]string{
	WarnDefinitionChanged: "benchmark changed since the baseline was recorded: metrics not compared; re-record the baseline",
	WarnNoBaseline:        "no baseline yet: record one (tailgate baseline record); this comparison passes",
	WarnNoHeadRuns:        "no head runs to judge",
	WarnRemoteTarget:      "the target is remote (target.remote): the network between this machine and the target is part of what is measured, and the target's CPU and memory are not measured",
}

func fixedWarning(code stats.WarningCode) stats.Warning { return stats.Warn(code, fixedTexts[code]) }

// WarningOf is the warning a message stands for, for a verdict read back
// from report.json, which keeps only the messages: the gate's fixed-text
// warnings get their codes back, any other message has none.
func WarningOf(message string) stats.Warning {
	for code, text := range fixedTexts {
		if text == message {
			return stats.Warn(code, message)
		}
	}
	return stats.Warning{Message: message}
}

func envWarning(diff string) stats.Warning {
	w := "environment fingerprint differs from the baseline's: differences may come from the machine, not the code"
	if diff != "" {
		w += " (" + diff + ")"
	}
	return stats.Warn(WarnEnvDiffers, w)
}

// calibrationWarnings say when some gated metric's calibrated floor rests
// on too few jobs, or jobs too close in time to see the drift between jobs.
func calibrationWarnings(findings []Finding, c Context) []stats.Warning {
	used := slices.ContainsFunc(findings, func(f Finding) bool {
		return f.Gated && f.FloorSource == FromCalibration && f.Outcome != NotAvailable
	})
	if !used || c.CalibrationJobs == 0 {
		return nil
	}
	var w []stats.Warning
	_, appendJobs, spread := c.calibrateAdvice()
	if c.CalibrationJobs < RecommendedCalibrationJobs {
		w = append(w, stats.Warn(WarnFewCalibrationJobs, fmt.Sprintf(
			"the floors come from a calibration of only %d %s (%d or more recommended): they may be too tight; add jobs with %s",
			c.CalibrationJobs, plural.Of(c.CalibrationJobs, "job", "jobs"), RecommendedCalibrationJobs, appendJobs)))
	}
	if c.CalibrationJobs > 1 && c.CalibrationSpan < MinCalibrationSpan {
		w = append(w, stats.Warn(WarnCalibrationBunched, fmt.Sprintf(
			"all %d calibration jobs started within %s: the floors miss the drift between CI jobs hours apart and may be too tight; spread the jobs with %s",
			c.CalibrationJobs, roughDuration(c.CalibrationSpan), spread)))
	}
	return w
}

// roughDuration prints a span in whole minutes (seconds below one).
func roughDuration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(math.Round(d.Seconds())))
	}
	m := int(math.Round(d.Minutes()))
	return fmt.Sprintf("%d %s", m, plural.Of(m, "minute", "minutes"))
}
