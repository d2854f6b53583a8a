// Package gatling owns the Gatling importers: simulation.log, text
// (Gatling 2.x–3.12) and binary (3.13 and later) ("gatling-simulation-log"),
// and the HTML report's js/stats.json, js/stats.js and js/global_stats.json
// of Gatling up to 3.13 ("gatling-stats-json"; from 3.14 the report keeps
// its figures in its HTML only: import the simulation.log).
//
// Only REQUEST records are requests. Groups time several requests that are
// already counted, so they are not requests; a request inside groups is the
// step "group / subgroup / request", as the report's own paths name it.
package gatling

import "github.com/tailgate-ci/tailgate/internal/importer"

func init() {
	importer.Register(LogFormat{})
	importer.Register(StatsFormat{})
}
