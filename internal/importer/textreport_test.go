package importer_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// countReports reads "Total: N" figures of reports that open with
// "Report", one list of totals per report, and the line each began on.
func countReports(totals *[][]string, starts *[]int) importer.TextReport {
	return importer.TextReport{
		Starts: func(line string) bool { return strings.HasPrefix(line, "Report") },
		Begin: func(line int) {
			*totals = append(*totals, nil)
			*starts = append(*starts, line)
		},
		Take: func(line string) error {
			if v, ok := strings.CutPrefix(line, "Total:"); ok {
				if strings.TrimSpace(v) == "" {
					return fmt.Errorf("Total: expected a number")
				}
				cur := &(*totals)[len(*totals)-1]
				*cur = append(*cur, strings.TrimSpace(v))
			}
			return nil
		},
	}
}

func TestTextReportReadsOneReportOfTrimmedLines(t *testing.T) {
	t.Parallel()
	var totals [][]string
	var starts []int
	n, err := countReports(&totals, &starts).Read("r.txt", strings.NewReader("$ demo\nTotal: 99\n  Report  \n\tTotal: 7 \n"))
	if err != nil || n != 1 || len(totals) != 1 || len(totals[0]) != 1 || totals[0][0] != "7" || starts[0] != 3 {
		t.Errorf("reports %d, totals %q from lines %v, err %v; the line before the report is skipped", n, totals, starts, err)
	}
	totals, starts = nil, nil
	n, err = countReports(&totals, &starts).Read("none.txt", strings.NewReader("nothing here\nTotal: 3\n"))
	if err != nil || n != 0 || len(totals) != 0 {
		t.Errorf("no report: reports %d, totals %q, err %v", n, totals, err)
	}
}

func TestTextReportSplitsSeveralReports(t *testing.T) {
	t.Parallel()
	var totals [][]string
	var starts []int
	n, err := countReports(&totals, &starts).Read("two.txt", strings.NewReader("Report\nTotal: 1\n\nReport\nTotal: 2\n"))
	if err != nil || n != 2 || len(totals) != 2 || totals[0][0] != "1" || totals[1][0] != "2" || starts[1] != 4 {
		t.Errorf("reports %d, totals %q from lines %v, err %v", n, totals, starts, err)
	}
}

func TestTextReportPlacesALineError(t *testing.T) {
	t.Parallel()
	var totals [][]string
	var starts []int
	_, err := countReports(&totals, &starts).Read("bad.txt", strings.NewReader("Report\n\nTotal:\n"))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 3 || syn.Msg != "Total: expected a number" {
		t.Errorf("err = %v", err)
	}
}
