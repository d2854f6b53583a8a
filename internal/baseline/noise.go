package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

const NoiseSchema = 1

// NoiseJobs is how many earlier A/B jobs a noise file keeps per key: enough
// to spare early looks a t of 2 or 3 df, few enough to follow a machine.
const NoiseJobs = 10

// Bounds of the noise file: read up to MaxNoiseBytes, written pruned to
// MaxNoiseEntries entries and maxNoiseWrite bytes (the entries whose last
// job is oldest go first), so a file a job wrote is one the next reads.
const (
	MaxNoiseBytes   = 16 << 20
	MaxNoiseEntries = 64
	maxNoiseWrite   = 4 << 20
)

// Noise is the noise file: the spread of the units of earlier A/B jobs per
// gated metric, kept apart by definition hash, machine class and design,
// which a sequential verdict pools with a job's own (stats.SeqPrior).
type Noise struct {
	Schema  int          `json:"schema"`
	Entries []NoiseEntry `json:"entries"`
}

// NoiseEntry is one benchmark definition on one machine class in one
// design, with its last NoiseJobs jobs, newest last.
type NoiseEntry struct {
	NoiseKey
	Jobs []NoiseJob `json:"jobs"`
}

// NoiseJob is one job's spread per metric key (the comparison scale: logs,
// or percentage points), with degrees of freedom (units − 1).
type NoiseJob struct {
	Time    time.Time                 `json:"time"`
	Commit  string                    `json:"commit,omitempty"`
	Metrics map[string]stats.SeqPrior `json:"metrics"`
}

type NoiseKey struct {
	Benchmark      string `json:"benchmark"`
	DefinitionHash string `json:"definition_hash"`
	Fingerprint    string `json:"fingerprint"`
	Design         string `json:"design"`
}

// ReadNoise reads a noise file: empty when there is none, an error naming
// it (never overwritten) when it cannot be read.
func ReadNoise(path string) (*Noise, error) {
	data, err := readStored(path, "noise")
	if errors.Is(err, ErrNotFound) {
		return &Noise{Schema: NoiseSchema}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w (remove it to start over)", err)
	}
	var n Noise
	if err := json.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("noise file %s: %w (remove it to start over)", path, err)
	}
	if n.Schema != NoiseSchema {
		return nil, fmt.Errorf("noise file %s: schema %d, this tailgate reads %d (remove it to start over)", path, n.Schema, NoiseSchema)
	}
	return &n, nil
}

// Prior is the pooled spread per metric of the entry's jobs (stats.PoolNoise),
// also where their disagreement leaves it no degrees of freedom: a look
// pools only a prior it can use (SeqPrior.UsableDF), and the report says
// why this one was not.
func (n *Noise) Prior(k NoiseKey) map[string]stats.SeqPrior {
	e := n.entry(k)
	if e == nil {
		return nil
	}
	perMetric := map[string][]stats.SeqPrior{}
	for _, j := range e.Jobs {
		for key, m := range j.Metrics {
			perMetric[key] = append(perMetric[key], m)
		}
	}
	out := map[string]stats.SeqPrior{}
	for key, jobs := range perMetric {
		if p := stats.PoolNoise(jobs); p.Summed > 0 {
			out[key] = p
		}
	}
	return out
}

func (n *Noise) Jobs(k NoiseKey) int {
	if e := n.entry(k); e != nil {
		return len(e.Jobs)
	}
	return 0
}

// Add keeps a job's spreads under k, dropping the oldest beyond NoiseJobs.
func (n *Noise) Add(k NoiseKey, j NoiseJob) {
	if len(j.Metrics) == 0 {
		return
	}
	e := n.entry(k)
	if e == nil {
		n.Entries = append(n.Entries, NoiseEntry{NoiseKey: k})
		e = &n.Entries[len(n.Entries)-1]
	}
	e.Jobs = append(e.Jobs, j)
	e.Jobs = e.Jobs[max(len(e.Jobs)-NoiseJobs, 0):]
}

func (n *Noise) entry(k NoiseKey) *NoiseEntry {
	if i := slices.IndexFunc(n.Entries, func(e NoiseEntry) bool { return e.NoiseKey == k }); i >= 0 {
		return &n.Entries[i]
	}
	return nil
}

// WriteNoise writes the file atomically, compact and pruned to its bounds.
func WriteNoise(path string, n *Noise) error {
	n.Schema = NoiseSchema
	data, err := n.pruned(maxNoiseWrite)
	if err != nil {
		return fmt.Errorf("noise file %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// pruned drops the entries whose last job is oldest until at most
// MaxNoiseEntries remain and the file encodes to at most max bytes (then,
// with one entry left, its oldest jobs), and returns the encoding.
func (n *Noise) pruned(max int) ([]byte, error) {
	slices.SortStableFunc(n.Entries, func(a, b NoiseEntry) int { return b.last().Compare(a.last()) }) // newest first
	n.Entries = n.Entries[:min(len(n.Entries), MaxNoiseEntries)]
	// The file is the entries' encodings joined by commas in a small frame.
	size := len(`{"schema":0,"entries":[]}`) + 8
	kept := 0
	for _, e := range n.Entries {
		data, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		if size+len(data)+1 > max && kept > 0 {
			break
		}
		size += len(data) + 1
		kept++
	}
	n.Entries = n.Entries[:kept]
	for {
		data, err := json.Marshal(n)
		if err != nil || len(data) <= max {
			return data, err
		}
		if len(n.Entries) != 1 || len(n.Entries[0].Jobs) < 2 {
			return nil, fmt.Errorf("one job's noise takes %d bytes, more than the %d the file may hold", len(data), max)
		}
		n.Entries[0].Jobs = n.Entries[0].Jobs[1:] // one entry too large alone: its oldest jobs go
	}
}

// last is the time of the entry's newest job (jobs are kept newest last).
func (e NoiseEntry) last() time.Time {
	if len(e.Jobs) == 0 {
		return time.Time{}
	}
	return e.Jobs[len(e.Jobs)-1].Time
}
