package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

type RecordOptions struct {
	Config *config.Config // its gate.window bounds the baseline; nil when Head is given
	Head   *result.File   // the runs to record; nil to run the benchmark
	Path   string         // the baseline file
	// Provenance says which commit, ref and job the runs measured; Time is
	// the runs' own, and an empty Job gets a local id from that time.
	Provenance baseline.Provenance
	History    string // the history file; "" for the one beside the baseline
	Runner     string // the CI's machine image, for the history ("" unknown)
}

// Recorded is what Record stored, and where the history went.
type Recorded struct {
	Head        *result.File
	Baseline    *baseline.File
	History     *baseline.History
	HistoryPath string
}

// Record appends the head runs (measured now, unless given) to the
// baseline file and the job to the history of main. An unreadable
// baseline or history stops it before anything runs, and is left as it
// is; a run that fails writes neither.
func Record(ctx context.Context, env Env, o RecordOptions) (Recorded, error) {
	bl, err := readBaseline(ctx, baseline.FileSource{Path: o.Path})
	if err != nil {
		return Recorded{}, err
	}
	historyPath := cmp.Or(o.History, baseline.HistoryPath(o.Path))
	hist, err := readHistory(historyPath)
	if err != nil {
		return Recorded{}, err
	}
	head, err := headRuns(ctx, env, o.Config, o.Head)
	if err != nil {
		return Recorded{}, err
	}
	g := gateOf(o.Config)
	if bl == nil {
		bl = baseline.New(head.Benchmark, head.DefinitionHash, head.Env, g.Window)
	} else if g.Window > 0 {
		bl.Window = g.Window
	}
	if bl.DefinitionHash != head.DefinitionHash && len(bl.Samples) > 0 {
		fmt.Fprintf(env.log(), "the benchmark definition changed: the %d old samples and the calibration are dropped\n", len(bl.Samples))
	}
	prov := stamped(o.Provenance, head.Created)
	bl.Append(head, prov)
	hist.Append(head, prov, o.Runner, g.History.Jobs)
	// The history first: a job appended twice (a retry after a failed
	// baseline write) replaces its own line there.
	if err := Runtime.Wrap(baseline.WriteHistory(historyPath, hist)); err != nil {
		return Recorded{}, err
	}
	if err := Runtime.Wrap(baseline.Write(o.Path, bl)); err != nil {
		return Recorded{}, err
	}
	return Recorded{Head: head, Baseline: bl, History: hist, HistoryPath: historyPath}, nil
}

// readHistory reads the history at path, empty when there is none yet; an
// unreadable one is a runtime failure that leaves the file as it is.
func readHistory(path string) (*baseline.History, error) {
	h, err := baseline.ReadHistory(path)
	if errors.Is(err, baseline.ErrNotFound) {
		return &baseline.History{}, nil
	}
	return h, Runtime.Wrap(err)
}

// stamped is p for runs made at t, with a local job id when none was
// named.
func stamped(p baseline.Provenance, t time.Time) baseline.Provenance {
	p.Time = t
	if p.Job == "" {
		p.Job = "local-" + t.UTC().Format("20060102T150405.000")
	}
	return p
}

// LinkOptions are the options of RecordLink (the link's parent is Judged.BaseCommit).
type LinkOptions struct {
	Config     *config.Config
	Judged     Judged
	Path       string
	Provenance baseline.Provenance
	Runner     string
}

// SpanJobSuffix ends the job id of a span's line, after "/ab".
const SpanJobSuffix = "-span"

// RecordLink appends a finished A/B of a commit of main against its
// parent to the history: a link of the chain. It needs both commits: a
// link without them could not be placed in the chain.
func RecordLink(o LinkOptions) (*baseline.History, error) {
	parent := o.Judged.BaseCommit
	if o.Provenance.Commit == "" || parent == "" {
		return nil, Usage.Errorf("a link of main's chain needs the commit and its parent: the head's commit (--commit) and a base built from a git ref (--base-ref or ab.base.ref; a base that is a target of its own without ref is no commit)")
	}
	hist, err := readHistory(o.Path)
	if err != nil {
		return nil, err
	}
	links := gate.LinkOf(o.Judged.Input.Verdict, policyFor(o.Config, nil, nil))
	c := baseline.Comparison{Parent: parent}
	for _, key := range slices.Sorted(maps.Keys(links)) {
		l := links[key]
		c.Metrics = append(c.Metrics, baseline.ComparedMetric{Key: key, Change: l.Change, Lo: l.Lo, Hi: l.Hi, Outcome: string(l.Outcome)})
	}
	head := o.Judged.Head
	// A CI job that records main and judges it keeps both lines: the
	// link's id is the job's and "/ab"; a span's (gate.SplitChain: its
	// base an earlier point of the chain than the last link's commit)
	// "/ab-span", so that a job that appends a link and a span keeps both.
	prov := stamped(o.Provenance, head.Created)
	prov.Job += "/ab"
	if gate.IsSpan(chainLinks(hist), gate.ChainLink{Commit: prov.Commit, Parent: parent}) {
		prov.Job += SpanJobSuffix
	}
	hist.AppendComparison(head.Benchmark, head.DefinitionHash, head.Env, c, prov, o.Runner, gateOf(o.Config).History.Jobs)
	return hist, Runtime.Wrap(baseline.WriteHistory(o.Path, hist))
}
