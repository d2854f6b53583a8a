package baseline

import (
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Earlier jobs whose spreads disagree so much that their pool is worth no
// degrees of freedom still come back from Prior, with the degrees of
// freedom they held, so that the report can say why the job used its
// own (a Caddy job beside a quiet and busy machine's jobs said nothing).
func TestNoisePriorKeepsAPoolItsJobsLeftNoDegreesOfFreedom(t *testing.T) {
	key := NoiseKey{Benchmark: "b", DefinitionHash: "h", Fingerprint: "f", Design: "d"}
	n := &Noise{Schema: NoiseSchema}
	for i, sd := range []float64{0.004, 0.004, 0.004, 0.08, 0.08, 0.08} {
		n.Add(key, NoiseJob{Time: time.Unix(int64(i), 0), Metrics: map[string]stats.SeqPrior{"cpu": {SD: sd, DF: 7}}})
	}
	p, ok := n.Prior(key)["cpu"]
	if !ok || p.Summed != 42 || p.UsableDF() != 0 {
		t.Fatalf("prior %+v (present %v), want the 42 df the jobs held, none of them usable", p, ok)
	}
	if got := (&Noise{Schema: NoiseSchema}).Prior(key); len(got) != 0 {
		t.Errorf("no jobs: prior %v, want none", got)
	}
}
