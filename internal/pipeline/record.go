package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// RecordOptions are the options of Record.
type RecordOptions struct {
	// Config is the benchmark; its gate.window bounds the baseline. It may
	// be nil when Head is given.
	Config *config.Config
	// Head holds the runs to record; nil to run the benchmark.
	Head *result.File
	// Path is the baseline file.
	Path string
	// Provenance says which commit, ref and job the runs measured; Time is
	// the runs' own, and an empty Job gets a local id from that time.
	Provenance baseline.Provenance
}

// Recorded is what Record stored.
type Recorded struct {
	Head     *result.File
	Baseline *baseline.File
}

// Record appends the head runs (measured now, unless given) to the
// baseline file, keeping its rolling window. An unreadable baseline stops
// it before anything runs, and is left as it is.
func Record(ctx context.Context, env Env, o RecordOptions) (Recorded, error) {
	bl, err := readBaseline(ctx, baseline.FileSource{Path: o.Path})
	if err != nil {
		return Recorded{}, err
	}
	head, err := headRuns(ctx, env, o.Config, o.Head)
	if err != nil {
		return Recorded{}, err
	}
	window := 0
	if o.Config != nil {
		window = o.Config.Gate.Window
	}
	if bl == nil {
		bl = baseline.New(head.Benchmark, head.DefinitionHash, head.Env, window)
	} else if window > 0 {
		bl.Window = window
	}
	if bl.DefinitionHash != head.DefinitionHash && len(bl.Samples) > 0 {
		fmt.Fprintf(env.log(), "the benchmark definition changed: the %d old samples and the calibration are dropped\n", len(bl.Samples))
	}
	bl.Append(head, stamped(o.Provenance, head.Created))
	if err := Runtime.Wrap(baseline.Write(o.Path, bl)); err != nil {
		return Recorded{}, err
	}
	return Recorded{Head: head, Baseline: bl}, nil
}

// stamped is p for runs made at t: with their time, and a local job id
// when no job was named.
func stamped(p baseline.Provenance, t time.Time) baseline.Provenance {
	p.Time = t
	if p.Job == "" {
		p.Job = "local-" + t.UTC().Format("20060102T150405.000")
	}
	return p
}
