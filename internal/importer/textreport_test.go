package importer_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// totalsReport keeps the "Total: N" figures of one report.
type totalsReport struct{ totals []string }

func (r *totalsReport) Take(line string) error {
	if v, ok := strings.CutPrefix(line, "Total:"); ok {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("Total: expected a number")
		}
		r.totals = append(r.totals, strings.TrimSpace(v))
	}
	return nil
}
func (r *totalsReport) Cut(string) bool                    { return true }
func (r *totalsReport) Finish(string) (*result.Run, error) { return &result.Run{}, nil }

// countReports reads reports that open with "Report": the totals of each,
// and the line each began on.
func countReports(name, text string) (totals [][]string, starts []int, err error) {
	var reps []*totalsReport
	_, err = importer.TextReport{Starts: func(line string) bool { return strings.HasPrefix(line, "Report") }}.ReadReports(
		name, "expected a report", strings.NewReader(text), func(line int, _ *result.Run) importer.Report {
			reps = append(reps, &totalsReport{})
			starts = append(starts, line)
			return reps[len(reps)-1]
		})
	for _, r := range reps {
		totals = append(totals, r.totals)
	}
	return totals, starts, err
}

func TestTextReportReadsOneReportOfTrimmedLines(t *testing.T) {
	t.Parallel()
	totals, starts, err := countReports("r.txt", "$ demo\nTotal: 99\n  Report  \n\tTotal: 7 \n")
	if err != nil || len(totals) != 1 || len(totals[0]) != 1 || totals[0][0] != "7" || starts[0] != 3 {
		t.Errorf("totals %q from lines %v, err %v; the line before the report is skipped", totals, starts, err)
	}
	totals, _, err = countReports("none.txt", "nothing here\nTotal: 3\n")
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Msg != "expected a report" || len(totals) != 0 {
		t.Errorf("no report: totals %q, err %v", totals, err)
	}
}

func TestTextReportSplitsSeveralReports(t *testing.T) {
	t.Parallel()
	totals, starts, err := countReports("two.txt", "Report\nTotal: 1\n\nReport\nTotal: 2\n")
	if err != nil || len(totals) != 2 || totals[0][0] != "1" || totals[1][0] != "2" || starts[1] != 4 {
		t.Errorf("totals %q from lines %v, err %v", totals, starts, err)
	}
}

func TestTextReportPlacesALineError(t *testing.T) {
	t.Parallel()
	_, _, err := countReports("bad.txt", "Report\n\nTotal:\n")
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 3 || syn.Msg != "Total: expected a number" {
		t.Errorf("err = %v", err)
	}
}
