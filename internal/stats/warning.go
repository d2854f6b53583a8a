package stats

import "slices"

// Warning is a caveat about a comparison or a verdict: Code, for callers
// to test, and Message, for reports. It is an error too.
type Warning struct {
	Code    WarningCode
	Message string
}

// WarningCode names a kind of warning; each package defines its own.
type WarningCode string

// The warnings Compare raises.
const (
	WarnCannotCompare   WarningCode = "cannot_compare"    // a value off the comparison scale (a zero throughput, a NaN)
	WarnTooFewSamples   WarningCode = "too_few_samples"   // no test can reach α, no noise calibrated
	WarnLowConfidence   WarningCode = "low_confidence"    // the t prediction test ran
	WarnFloorBelowNoise WarningCode = "floor_below_noise" // an uncalibrated floor below the samples' own noise
)

func (w Warning) Error() string { return w.Message }

// Warn returns a warning of code with message.
func Warn(code WarningCode, message string) Warning { return Warning{Code: code, Message: message} }

// Messages returns the warnings' messages, in order.
func Messages(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Message
	}
	return out
}

// HasWarning reports whether ws holds a warning of code.
func HasWarning(ws []Warning, code WarningCode) bool {
	return slices.ContainsFunc(ws, func(w Warning) bool { return w.Code == code })
}
