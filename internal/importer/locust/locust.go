// Package locust owns the Locust importer. Locust's --csv option writes a
// family of sibling files (PREFIX_stats.csv, _stats_history.csv,
// _failures.csv, _exceptions.csv; before 0.13 PREFIX_requests.csv and
// _distribution.csv); given any of them, the importer reads the family:
// stats give counts and summary figures, history the time span, failures
// the error classes. Locust keeps no raw samples, so runs carry summary
// figures only, never histograms.
package locust

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() { importer.Register(CSV{}) }

// CSV reads one Locust --csv family.
type CSV struct{}

func (CSV) Name() string { return "locust-csv" }

// kind is which member of the family a file is.
type kind int

const (
	unknown      kind = iota
	stats             // _stats.csv (0.13+) or _requests.csv (0.x)
	distribution      // _distribution.csv (0.x percentiles)
	history           // _stats_history.csv
	failures          // _failures.csv
	exceptions        // _exceptions.csv
)

var suffixes = []struct {
	suffix string
	kind   kind
}{
	{"_stats_history.csv", history},
	{"_stats.csv", stats},
	{"_requests.csv", stats},
	{"_distribution.csv", distribution},
	{"_failures.csv", failures},
	{"_exceptions.csv", exceptions},
}

// classify tells a family member from its header row.
func classify(header []string) kind {
	has := map[string]bool{}
	for _, h := range header {
		has[norm(h)] = true
	}
	switch {
	case has["timestamp"] && has["user count"]:
		return history
	case has["name"] && (has["request count"] || has["# requests"]) && (has["type"] || has["method"]):
		return stats
	case has["name"] && has["# requests"] && has["50%"]:
		return distribution
	case has["method"] && has["name"] && has["error"] && has["occurrences"]:
		return failures
	case has["count"] && has["message"] && has["traceback"]:
		return exceptions
	}
	return unknown
}

func norm(h string) string { return strings.ToLower(strings.TrimSpace(h)) }

func headerOf(head []byte) []string {
	line, _, _ := bytes.Cut(bytes.TrimPrefix(head, []byte("\ufeff")), []byte{'\n'})
	cr := csv.NewReader(bytes.NewReader(bytes.TrimRight(line, "\r")))
	cr.LazyQuotes = true
	rec, err := cr.Read()
	if err != nil {
		return nil
	}
	return rec
}

func (CSV) Sniff(_ string, head []byte) bool { return classify(headerOf(head)) != unknown }

// family holds the contents of the sibling files that exist.
type family struct {
	statsName, distName, historyName, failuresName string
	stats, dist, history, failures                 []byte
}

func (CSV) Import(name string, r io.Reader) (*result.Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	k := classify(headerOf(data))
	if k == unknown {
		return nil, &importer.SyntaxError{File: name, Line: 1,
			Msg: "expected the header of a Locust --csv file (Type,Name,Request Count,… or Timestamp,User Count,… or Method,Name,Error,Occurrences)"}
	}
	fam, err := loadFamily(name, k, data)
	if err != nil {
		return nil, err
	}
	return fam.run()
}

// loadFamily reads the siblings of the file it was given.
func loadFamily(name string, k kind, data []byte) (*family, error) {
	base, _ := splitSuffix(name)
	fam := &family{}
	var err error
	switch k {
	case stats:
		fam.statsName, fam.stats = name, data
	case distribution:
		fam.distName, fam.dist = name, data
	case history:
		fam.historyName, fam.history = name, data
	case failures:
		fam.failuresName, fam.failures = name, data
	}
	if fam.stats == nil {
		if base == "" {
			return nil, &importer.Unsupported{File: name, Reason: "a Locust CSV that is not a _stats.csv file, and its name does not show where its _stats.csv sibling is"}
		}
		candidates := []string{base + "_stats.csv", base + "_requests.csv"}
		if k == distribution {
			candidates = candidates[1:]
		}
		if fam.statsName, fam.stats, err = readFirst(candidates...); err != nil {
			return nil, err
		}
		if fam.stats == nil {
			return nil, &importer.Unsupported{File: name, Reason: fmt.Sprintf("Locust CSV without its stats sibling (looked for %s)", strings.Join(candidates, " and "))}
		}
	}
	if base == "" {
		return fam, nil
	}
	if fam.history == nil {
		if fam.historyName, fam.history, err = readFirst(base + "_stats_history.csv"); err != nil {
			return nil, err
		}
	}
	if fam.failures == nil {
		if fam.failuresName, fam.failures, err = readFirst(base + "_failures.csv"); err != nil {
			return nil, err
		}
	}
	if fam.dist == nil && strings.HasSuffix(fam.statsName, "_requests.csv") {
		if fam.distName, fam.dist, err = readFirst(base + "_distribution.csv"); err != nil {
			return nil, err
		}
	}
	return fam, nil
}

func splitSuffix(name string) (base string, k kind) {
	for _, s := range suffixes {
		if strings.HasSuffix(name, s.suffix) {
			return strings.TrimSuffix(name, s.suffix), s.kind
		}
	}
	return "", unknown
}

// readFirst reads the first of the paths that exists; none existing is not
// an error.
func readFirst(paths ...string) (string, []byte, error) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("reading Locust sibling file: %w", err)
		}
		return p, b, nil
	}
	return "", nil, nil
}
