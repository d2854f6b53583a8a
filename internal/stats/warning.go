package stats

import "slices"

// Warning is a caveat about a comparison or a verdict, as a value: Code
// says what kind it is, so that callers can test for it, and Message is
// what reports print. It is an error, so it also fits where caveats are
// collected as []error (benchmath's convention).
type Warning struct {
	Code    WarningCode
	Message string
}

// WarningCode names a kind of warning. Each package defines the codes of
// the warnings it raises.
type WarningCode string

// The warnings Compare raises.
const (
	// WarnCannotCompare: the values cannot be put on the comparison scale
	// (a zero throughput, a NaN); no test ran.
	WarnCannotCompare WarningCode = "cannot_compare"
	// WarnTooFewSamples: no test can reach α with these sample sizes and
	// no noise is calibrated.
	WarnTooFewSamples WarningCode = "too_few_samples"
	// WarnLowConfidence: the t prediction test ran, on few samples.
	WarnLowConfidence WarningCode = "low_confidence"
	// WarnFloorBelowNoise: an uncalibrated floor is smaller than the
	// run-to-run noise the samples themselves show.
	WarnFloorBelowNoise WarningCode = "floor_below_noise"
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
