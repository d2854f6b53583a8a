package k6

import (
	"bytes"
	"os"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
)

// seedCap keeps fuzz seeds small enough to mutate quickly; big fixtures are
// cut at a line end.
const seedCap = 32 << 10

// FuzzImport feeds every k6 parser the same bytes: none may panic, and each
// must return a run that encodes or a typed error with a reason.
func FuzzImport(f *testing.F) {
	importertest.AddSeeds(f, 0, importertest.Files("testdata/*")...)
	for _, path := range importertest.SharedFixtureFiles("k6-summary-export", "k6-handlesummary", "k6-ndjson", "k6-csv") {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > seedCap {
			data = data[:bytes.LastIndexByte(data[:seedCap], '\n')+1]
		}
		f.Add(data)
	}
	importertest.Fuzz(f, checkNoLifecycle, SummaryExport{}, HandleSummary{}, MachineSummary{}, NDJSON{}, CSV{})
}
