package locust

import (
	"regexp"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

var statusRe = regexp.MustCompile(`\b[1-5]\d\d (Client|Server) Error\b|\bstatus(?: code)?:? [1-5]\d\d\b`)

// failureClasses classes Locust failure messages: an HTTP status error, a
// timeout, a transport failure in Python exception text, or else a failed
// expectation (catch_response failures carry the script's own text).
var failureClasses = importer.MessageClasses{
	Status:  statusRe.MatchString,
	Timeout: []string{"timed out", "timeout"},
	Connection: []string{
		"connectionerror", "remotedisconnected", "gaierror", "connectionrefused",
		"connectionreset", "newconnectionerror", "max retries", "brokenpipe",
		"broken pipe", "sslerror", "connection aborted", "connectionaborted", "connection refused",
	},
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
			Class:  failureClasses.Class(msg),
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
