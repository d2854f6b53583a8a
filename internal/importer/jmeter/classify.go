package jmeter

import (
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// nonHTTPPrefix starts the response code JMeter writes when a request got
// no HTTP response at all (the exception's class follows).
const nonHTTPPrefix = "Non HTTP response code:"

// classify puts a failed sample in an error class, with a message that
// shows the cause.
func classify(s sample) (class, msg string) {
	code := strings.TrimSpace(s.code)
	if strings.HasPrefix(code, nonHTTPPrefix) {
		exc := strings.TrimSpace(strings.TrimPrefix(code, nonHTTPPrefix))
		msg = exc
		if m := strings.TrimSpace(s.message); m != "" {
			msg += ": " + strings.TrimSpace(strings.TrimPrefix(m, "Non HTTP response message:"))
		}
		return transportClass(exc), importer.OneLine(msg)
	}
	// A page whose embedded resource got no response says so in its message.
	if i := strings.Index(s.message, nonHTTPPrefix); i >= 0 {
		return transportClass(s.message[i:]), importer.OneLine(s.message)
	}
	if strings.Contains(s.failure, "lasted too long") { // Duration Assertion
		return result.ErrTimeout, importer.OneLine(s.failure)
	}
	status, err := strconv.Atoi(code)
	if err == nil && (status < 200 || status >= 400) {
		return result.ErrStatus, importer.OneLine(code + " " + s.message)
	}
	if s.failure != "" {
		return result.ErrExpect, importer.OneLine(s.failure)
	}
	if code == "" {
		return result.ErrExpect, "sample failed without a response code"
	}
	return result.ErrExpect, importer.OneLine("sample marked failed with response " + code + " " + s.message)
}

// transportClass classes a failure without an HTTP response by the
// exception named in text.
func transportClass(text string) string {
	if strings.Contains(strings.ToLower(text), "timeout") {
		return result.ErrTimeout
	}
	return result.ErrConnection
}
