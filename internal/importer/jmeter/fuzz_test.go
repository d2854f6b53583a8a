package jmeter

import (
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
)

// fuzzSeedMax keeps seeds small enough to mutate quickly.
const fuzzSeedMax = 64 << 10

func FuzzImportCSV(f *testing.F) {
	importertest.AddSeeds(f, fuzzSeedMax, importertest.Files("testdata/*.csv", "testdata/bad/*.csv")...)
	importertest.AddSeeds(f, fuzzSeedMax, importertest.SharedFixtureFiles("jmeter-jtl-csv")...)
	importertest.Fuzz(f, importertest.CheckCounts, CSVFormat{})
}

func FuzzImportXML(f *testing.F) {
	importertest.AddSeeds(f, fuzzSeedMax, importertest.Files("testdata/*.xml")...)
	importertest.AddSeeds(f, fuzzSeedMax, importertest.SharedFixtureFiles("jmeter-jtl-xml")...)
	importertest.Fuzz(f, importertest.CheckCounts, XMLFormat{})
}

func FuzzImportStatistics(f *testing.F) {
	importertest.AddSeeds(f, fuzzSeedMax, importertest.Files("testdata/*.json", "testdata/bad/*.json")...)
	importertest.AddSeeds(f, fuzzSeedMax, importertest.SharedFixtureFiles("jmeter-statistics-json")...)
	importertest.Fuzz(f, importertest.CheckRequests, StatisticsFormat{})
}
