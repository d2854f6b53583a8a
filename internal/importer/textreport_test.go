package importer_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// countReport reads "Total: N" figures of reports that open with "Report".
func countReport(totals *[]string) importer.TextReport {
	return importer.TextReport{
		Tool:   "demo",
		Starts: func(line string) bool { return strings.HasPrefix(line, "Report") },
		Take: func(line string) error {
			if v, ok := strings.CutPrefix(line, "Total:"); ok {
				if strings.TrimSpace(v) == "" {
					return fmt.Errorf("Total: expected a number")
				}
				*totals = append(*totals, strings.TrimSpace(v))
			}
			return nil
		},
	}
}

func TestTextReportReadsOneReportOfTrimmedLines(t *testing.T) {
	var totals []string
	n, err := countReport(&totals).Read("r.txt", strings.NewReader("$ demo\n  Report  \n\tTotal: 7 \n"))
	if err != nil || n != 1 || len(totals) != 1 || totals[0] != "7" {
		t.Errorf("reports %d, totals %q, err %v", n, totals, err)
	}
	n, err = countReport(&totals).Read("none.txt", strings.NewReader("nothing here\n"))
	if err != nil || n != 0 {
		t.Errorf("no report: reports %d, err %v", n, err)
	}
}

func TestTextReportRejectsASecondReport(t *testing.T) {
	var totals []string
	_, err := countReport(&totals).Read("two.txt", strings.NewReader("Report\nTotal: 1\n\nReport\nTotal: 2\n"))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || uns.File != "two.txt" ||
		uns.Reason != "several demo reports in one file (the second starts at line 4); import each report from its own file" {
		t.Errorf("err = %v", err)
	}
}

func TestTextReportPlacesALineError(t *testing.T) {
	var totals []string
	_, err := countReport(&totals).Read("bad.txt", strings.NewReader("Report\n\nTotal:\n"))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 3 || syn.Msg != "Total: expected a number" {
		t.Errorf("err = %v", err)
	}
}
