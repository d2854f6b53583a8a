package vegeta

import (
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
)

// fuzzSeedMax keeps fixture seeds small enough to mutate quickly.
const fuzzSeedMax = 16 << 10

// FuzzImport feeds the vegeta parsers the same bytes: no panic, and a run
// that encodes or a typed error.
func FuzzImport(f *testing.F) {
	for _, file := range []string{"report.json", "report-old.json", "report.txt", "results.jsonl", "cut.jsonl", "bad.jsonl"} {
		f.Add(importertest.Testdata(f, file))
	}
	f.Add(gobStream(f, sampleResults()))
	importertest.AddSeeds(f, fuzzSeedMax, importertest.SharedFixtureFiles("vegeta-report-json", "vegeta-results-gob", "vegeta-report-text")...)
	importertest.Fuzz(f, nil, Report{}, Results{}, Text{})
}
