package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// The build says where it runs: the working directory by name, not as an
// empty path.
func TestBuildSaysWhereItRuns(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	b := &Benchmark{Config: &config.Config{Build: &config.Build{Command: config.Command{Shell: "true"}, Timeout: config.Duration(time.Minute)}}, Log: &log}
	if err := b.Build(context.Background(), "", ""); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(log.String(), "\n"); first != "build: building in the working directory (at most 1m0s)" {
		t.Errorf("first line %q", first)
	}
}
