// Command tailgate is a CI performance-regression gate for HTTP services.
// Run `tailgate help` for the commands; the README is the manual.
package main

import (
	"os"

	"github.com/tailgate-ci/tailgate/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
