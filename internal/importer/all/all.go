// Package all links every importer format into the binary: import it for
// its side effect wherever formats are looked up by name or detected.
package all

import (
	_ "github.com/tailgate-ci/tailgate/internal/importer/ab"
	_ "github.com/tailgate-ci/tailgate/internal/importer/artillery"
	_ "github.com/tailgate-ci/tailgate/internal/importer/bombardier"
	_ "github.com/tailgate-ci/tailgate/internal/importer/gatling"
	_ "github.com/tailgate-ci/tailgate/internal/importer/hey"
	_ "github.com/tailgate-ci/tailgate/internal/importer/jmeter"
	_ "github.com/tailgate-ci/tailgate/internal/importer/k6"
	_ "github.com/tailgate-ci/tailgate/internal/importer/locust"
	_ "github.com/tailgate-ci/tailgate/internal/importer/oha"
	_ "github.com/tailgate-ci/tailgate/internal/importer/vegeta"
	_ "github.com/tailgate-ci/tailgate/internal/importer/wrk"
)
