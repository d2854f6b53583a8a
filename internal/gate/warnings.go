package gate

import "github.com/tailgate-ci/tailgate/internal/stats"

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
	WarnRemoteTarget      stats.WarningCode = "remote_target"
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
