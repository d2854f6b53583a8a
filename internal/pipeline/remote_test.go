package pipeline

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// A benchmark of a remote target says in its verdict, and so in every
// report, that the network is part of what it measured. The runs are
// given: nothing is sent anywhere.
func TestCheckOfARemoteTargetWarns(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("remote.yml", []byte(`name: synthetic
target: {url: "https://staging.example.com", remote: true}
load: {rate: 10/s}
scenarios: [{steps: [{path: /}]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	var te testEnv
	j, err := Check(context.Background(), te.env(), CheckOptions{Config: cfg, Head: synthetic(5, 1),
		Baseline: baseline.FileSource{Path: filepath.Join(t.TempDir(), "none.json")}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := stats.Messages(j.Verdict.Warnings)
	if !j.Verdict.HasWarning(gate.WarnRemoteTarget) || !slices.ContainsFunc(msgs, func(m string) bool {
		return strings.Contains(m, "the network between this machine and the target is part of what is measured")
	}) {
		t.Errorf("warnings %q, want the remote target's", msgs)
	}
}
