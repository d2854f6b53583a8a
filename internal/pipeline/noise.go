package pipeline

import (
	"cmp"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// abNoise is an A/B job's noise file: the stored spread it pools (prior)
// and where this job's is kept; nil, whose methods do nothing, without one.
type abNoise struct {
	path    string
	file    *baseline.Noise
	key     baseline.NoiseKey
	prior   map[string]stats.SeqPrior
	earlier int // jobs the file held for the key before this one
	now     func() time.Time
}

// noisePath is the job's noise file (ABOptions.NoisePath); "" for none.
func (o ABOptions) noisePath(ab config.AB) string {
	p := cmp.Or(o.NoisePath, ab.Noise, o.NoiseDefault)
	if p == config.NoiseOff {
		return ""
	}
	return p
}

// designKey names what makes two jobs' units comparable besides the
// definition and the machine: the blocks' windows and the restarts. Not
// whether a closed phase ran at once: that follows the machine's load of
// the moment, and would split one benchmark's history by its neighbours
// (stored noise is pooled only as far as it agrees, stats.PoolNoise).
func designKey(plan runner.ABPlan) string {
	s := plan.Shape
	restart := config.RestartNever
	if plan.Restart {
		restart = config.RestartEveryPair
	}
	if s.Blocks() {
		return fmt.Sprintf("blocks %d×%s warm-up %s restart %s", s.Windows, s.Window, s.WindowWarmup, restart)
	}
	return fmt.Sprintf("whole runs restart %s", restart)
}

// readNoise reads the noise file at path ("" for none), before any of the
// pull request's code runs: what the PR's code writes to the file later
// is never pooled, and the job writes back what it read with its own job
// added. An unreadable file is an error (one too large, bad input), never
// overwritten.
func readNoise(path string) (*baseline.Noise, error) {
	if path == "" {
		return nil, nil
	}
	f, err := baseline.ReadNoise(path)
	return f, Runtime.Wrap(err)
}

// openNoise is the job's part of the noise file f (nil for none): its
// key, known once the design is, and the prior stored for it.
func openNoise(path string, f *baseline.Noise, cfg *config.Config, env result.Env, plan runner.ABPlan) *abNoise {
	if f == nil {
		return nil
	}
	n := &abNoise{path: path, file: f, now: time.Now,
		key: baseline.NoiseKey{Benchmark: cfg.Name, DefinitionHash: cfg.DefinitionHash(), Fingerprint: env.Fingerprint(), Design: designKey(plan)}}
	n.prior, n.earlier = f.Prior(n.key), f.Jobs(n.key)
	return n
}

func (n *abNoise) stored() map[string]stats.SeqPrior {
	if n == nil {
		return nil
	}
	return n.prior
}

func (n *abNoise) keep(v gate.Verdict, commit string) error {
	if n == nil || v.Sequential == nil || len(v.Noise) == 0 {
		return nil
	}
	n.file.Add(n.key, baseline.NoiseJob{Time: n.now().UTC(), Commit: commit, Metrics: v.Noise})
	return baseline.WriteNoise(n.path, n.file)
}

func (n *abNoise) notes(v gate.Verdict) []string {
	if n == nil {
		return nil
	}
	return report.NoiseNotes(n.path, n.earlier, n.prior, v)
}
