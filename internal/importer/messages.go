package importer

import (
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// MessageClasses puts a tool's free-text failure message in an error
// class: an HTTP status failure, else a timeout, else a transport failure,
// else a failed expectation (a check or assertion of the script's own).
type MessageClasses struct {
	// Status reports a message that names an HTTP status failure; it sees
	// the message as written.
	Status func(msg string) bool
	// Timeout and Connection are lower-case fragments of the messages of
	// timeouts and of transport failures.
	Timeout, Connection []string
}

// Class names the error class of msg.
func (c MessageClasses) Class(msg string) string {
	lower := strings.ToLower(msg)
	switch {
	case c.Status(msg):
		return result.ErrStatus
	case containsAny(lower, c.Timeout):
		return result.ErrTimeout
	case containsAny(lower, c.Connection):
		return result.ErrConnection
	}
	return result.ErrExpect
}

func containsAny(s string, fragments []string) bool {
	for _, f := range fragments {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// sampleMax is the length of an error class's sample message, in
// characters.
const sampleMax = 200

// OneLine keeps a message to one readable line: white space folded, and
// at most 200 characters.
func OneLine(s string) string {
	return Clip(strings.Join(strings.Fields(s), " "), sampleMax)
}

// Clip cuts s to at most n characters, marking a cut with "…".
func Clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// DropLatencies deletes the latency metrics of a run whose tool timed
// nothing (every request failed), or only those it printed as 0.
func DropLatencies(m map[string]float64, zeroOnly bool) {
	for _, k := range []string{result.LatencyMax, result.LatencyMean, result.LatencyP50, result.LatencyP90, result.LatencyP95, result.LatencyP99} {
		if !zeroOnly || m[k] == 0 {
			delete(m, k)
		}
	}
}
