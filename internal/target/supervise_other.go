//go:build !unix

package target

import (
	"fmt"
	"os"
)

// CanSupervise says whether Supervise works here: it needs process groups.
const CanSupervise = false

// Supervise needs process groups, which this system does not have.
func Supervise([]string) int {
	fmt.Fprintln(os.NewFile(4, "tailgate-report"), "failed", errNoGroups)
	return 2
}
