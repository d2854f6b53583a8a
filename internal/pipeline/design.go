package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/runner"
)

// busyCores is how many cores other processes may keep busy before the
// first block for ab.design auto to run a duet. Beside a neighbour that
// holds a core (a CPU hog, another job's build) the duet's two sides get
// unequal shares of what is left, which moves its throughput from block
// to block (Miniflux beside a hog: 13 % against 4.7 % interleaved); a
// quiet machine's daemons keep far less than half a core busy.
const busyCores = 0.5

// chooseDesign resolves ab.design auto into plan.Design and says what it
// chose and why: the duet, unless other processes keep busyCores or more
// of the machine busy, then the hybrid design (its closed phases
// alternate between the sides, its open phases still load both at once:
// a fixed rate asks neither side for all it can get). It samples only
// when the duet could run (a fallback decides otherwise anyway), after
// the builds and before any side is started, so what it sees is the
// neighbours', not the builds': the choice does not depend on the change
// under test, and each design keeps its error rates.
func (e Env) chooseDesign(ctx context.Context, b *runner.Benchmark, plan *runner.ABPlan) (string, error) {
	if plan.Design != config.DesignAuto {
		return "", nil
	}
	plan.Design = config.DesignDuet
	if b.Shape(*plan).Design != config.DesignDuet || e.MachineCPU == nil {
		return "", nil
	}
	fmt.Fprintln(e.log(), "design auto: watching how busy the machine is before the first block")
	m, err := e.MachineCPU(ctx)
	switch {
	case ctx.Err() != nil:
		return "", errors.Join(ctx.Err(), err)
	case err != nil:
		return fmt.Sprintf("design auto: duet, as how busy the machine is could not be read (%v)", err), nil
	case m.Busy >= busyCores:
		plan.Design = config.DesignHybrid
		return fmt.Sprintf("design auto: %s, as other processes kept %.2f of the machine's %d cores busy before the first block (over %s; from %.1f on, two sides loaded at once as hard as they can would share what is left unequally)",
			busyRuns(b.Shape(*plan).Design), m.Busy, m.Cores, m.Over.Round(100*time.Millisecond), busyCores), nil
	default:
		return fmt.Sprintf("design auto: duet, as the machine was quiet before the first block (%.2f of %d cores busy over %s; from %.1f on, closed phases alternate between the sides)",
			m.Busy, m.Cores, m.Over.Round(100*time.Millisecond), busyCores), nil
	}
}

// busyRuns says what a busy machine's job runs, by the design its phases
// make of hybrid (runner.Benchmark.Shape).
func busyRuns(design string) string {
	switch design {
	case config.DesignHybrid:
		return "hybrid (closed phases alternating between the sides, open phases loading both at once)"
	case config.DesignDuet:
		return "duet (every phase is open: a fixed rate asks neither side for all it can get)"
	}
	return "interleaved (every phase is closed: each side's virtual users take all the machine gives)"
}
