package gatling

import (
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// transportMarkers are fragments of the exceptions Gatling (Netty, the JDK)
// reports when a request got no response.
var transportMarkers = []string{
	"connectexception", "connection refused", "connection reset", "closedchannelexception",
	"prematurecloseexception", "unknownhostexception", "sslexception", "sslhandshake",
	"no route to host", "broken pipe", "socketexception", "channel closed", "connection closed",
}

// classify puts a KO message in an error class.
func classify(msg string) string {
	lower := strings.ToLower(msg)
	switch {
	case strings.HasPrefix(lower, "status."):
		return result.ErrStatus // status.find.is(200), but actually found 500
	case strings.Contains(lower, "timeout"):
		return result.ErrTimeout
	}
	for _, m := range transportMarkers {
		if strings.Contains(lower, m) {
			return result.ErrConnection
		}
	}
	return result.ErrExpect
}

// shorten keeps sample messages to one readable line.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 200
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
