package locust

import (
	"regexp"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

var statusRe = regexp.MustCompile(`\b[1-5]\d\d (Client|Server) Error\b|\bstatus(?: code)?:? [1-5]\d\d\b`)

// connectionWords mark transport failures in Python exception text.
var connectionWords = []string{
	"connectionerror", "remotedisconnected", "gaierror", "connectionrefused",
	"connectionreset", "newconnectionerror", "max retries", "brokenpipe",
	"broken pipe", "sslerror", "connection aborted", "connectionaborted", "connection refused",
}

// classify names the class of a Locust failure message: an HTTP status
// error, a timeout, a connection failure, or else a failed expectation
// (catch_response failures carry the script's own text).
func classifyFailure(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case statusRe.MatchString(msg):
		return result.ErrStatus
	case strings.Contains(m, "timed out") || strings.Contains(m, "timeout"):
		return result.ErrTimeout
	}
	for _, w := range connectionWords {
		if strings.Contains(m, w) {
			return result.ErrConnection
		}
	}
	return result.ErrExpect
}

// parseFailures reads the failures table into error classes.
func parseFailures(t *table) ([]result.ErrorClass, error) {
	var out []result.ErrorClass
	for _, r := range t.rows {
		n, _, err := r.num("occurrences")
		if err != nil {
			return nil, err
		}
		msg := strings.Trim(r.str("error"), `"`)
		step := r.str("name")
		if m := strings.TrimSpace(r.str("method")); m != "" && m != "None" {
			step = m + " " + step
		}
		out = append(out, result.ErrorClass{
			Class:  classifyFailure(msg),
			Step:   cleanName(step),
			Count:  int64(n),
			Sample: cleanName(truncate(msg, 300)),
		})
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
