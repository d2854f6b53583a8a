// Command tailgate is a CI performance-regression gate for HTTP services.
// Run `tailgate help` for the commands; the README is the manual.
package main

import (
	"fmt"
	"os"

	"github.com/tailgate-ci/tailgate/internal/cli"
)

func main() {
	// Before anything is started: no child may read the token in this
	// process's environment or memory.
	if err := cli.ProtectProcess(); err != nil {
		fmt.Fprintf(os.Stderr, "tailgate: warning: cannot protect its environment from its children: %v\n", err)
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
