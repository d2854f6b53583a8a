// Package gatling owns the Gatling importers: the text simulation.log of
// Gatling 2.x–3.9 ("gatling-simulation-log") and the HTML report's
// js/stats.json and js/global_stats.json ("gatling-stats-json").
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
