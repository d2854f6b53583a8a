package gatling

import (
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
)

// fuzzSeedMax keeps seeds small enough to mutate quickly.
const fuzzSeedMax = 64 << 10

func FuzzImportLog(f *testing.F) {
	importertest.AddSeeds(f, fuzzSeedMax, importertest.Files("testdata/*.log")...)
	importertest.AddSeeds(f, fuzzSeedMax, importertest.SharedFixtureFiles("gatling-simulation-log")...)
	f.Add(sampleBinaryLog())
	importertest.Fuzz(f, importertest.CheckCounts, LogFormat{})
}

func FuzzImportStats(f *testing.F) {
	importertest.AddSeeds(f, fuzzSeedMax, importertest.Files("testdata/*.json")...)
	importertest.AddSeeds(f, fuzzSeedMax, importertest.SharedFixtureFiles("gatling-stats-json")...)
	importertest.Fuzz(f, importertest.CheckRequests, StatsFormat{})
}
