// Package baseline owns the stored files: baselines/<name>.json (the
// window of runs a head is judged against, and a calibration's A/A jobs
// and noise), the history of main beside it, the noise file, the release
// tags a check compares with, and where a check reads them from (a
// Source: the working directory, or through git the PR's base commit or a
// branch only trusted runs write). Files are written atomically; one that
// cannot be read is reported, never overwritten.
package baseline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
	"github.com/tailgate-ci/tailgate/internal/bounded"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// SchemaVersion is the version of the baseline file written by this build.
const SchemaVersion = 1

// DefaultWindow is how many samples a baseline keeps by default.
const DefaultWindow = 30

var (
	// ErrNotFound: there is no baseline file yet.
	ErrNotFound = errors.New("no baseline yet")
	// ErrCorrupt: the file exists but is not a baseline this build can read.
	ErrCorrupt = errors.New("baseline file unreadable")
)

type File struct {
	Schema         int        `json:"schema"`
	Benchmark      string     `json:"benchmark"`
	DefinitionHash string     `json:"definition_hash"`
	Env            result.Env `json:"env"`
	// Window is the number of samples kept; older ones are dropped.
	Window  int      `json:"window"`
	Samples []Sample `json:"samples"`
	// Calibration holds the A/A jobs and the noise measured from them.
	Calibration *Calibration `json:"calibration,omitempty"`
}

type Sample struct {
	Commit  string             `json:"commit,omitempty"`
	Ref     string             `json:"ref,omitempty"`
	Job     string             `json:"job"`
	Time    time.Time          `json:"time"`
	Metrics map[string]float64 `json:"metrics"`
}

// Provenance says where and from which job recorded runs came.
type Provenance struct {
	Commit, Ref, Job string
	Time             time.Time
}

// Decode parses a baseline file. The name is used in messages.
func Decode(name string, data []byte) (*File, error) {
	var f File
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v (fix or remove the file; it was not changed)", ErrCorrupt, name, err)
	}
	if f.Schema != SchemaVersion {
		return nil, fmt.Errorf("%w: %s: schema %d, this build reads schema %d (it was not changed)", ErrCorrupt, name, f.Schema, SchemaVersion)
	}
	f.Window = cmp.Or(max(f.Window, 0), DefaultWindow)
	return &f, nil
}

// Size bounds of the stored files read: one past its bound is bad input
// (exit 2), never read whole. A history is written at most MaxHistoryBytes
// and read up to twice that; maxGitFile bounds any other file read from a
// commit (feeds are the largest, 64 MiB).
const (
	MaxBaselineBytes    = 16 << 20
	MaxHistoryReadBytes = 2 * MaxHistoryBytes
	maxGitFile          = 64 << 20
)

func storedLimit(what string) int64 {
	switch what {
	case "baseline":
		return MaxBaselineBytes
	case "history":
		return MaxHistoryReadBytes
	case "noise":
		return MaxNoiseBytes
	}
	return maxGitFile
}

// Read reads the baseline at path; ErrNotFound when there is none.
func Read(path string) (*File, error) { return readAt(path, "baseline", Decode) }

// readAt decodes the stored file what names at path; ErrNotFound when
// there is none.
func readAt[T any](path, what string, decode func(string, []byte) (*T, error)) (*T, error) {
	data, err := readStored(path, what)
	if err != nil {
		return nil, err
	}
	return decode(path, data)
}

// readStored reads a stored file (what names it in errors); ErrNotFound
// when there is none.
func readStored(path, what string) ([]byte, error) {
	data, err := bounded.ReadFile(path, what+" file", storedLimit(what))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, path)
	}
	if err != nil && !bounded.IsTooLarge(err) {
		err = fmt.Errorf("reading %s: %w", what, err)
	}
	return data, err
}

// Write replaces the file at path atomically.
func Write(path string, f *File) error {
	f.Schema = SchemaVersion
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	})
}

func New(benchmark, definitionHash string, env result.Env, window int) *File {
	return &File{Schema: SchemaVersion, Benchmark: benchmark, DefinitionHash: definitionHash, Env: env, Window: cmp.Or(max(window, 0), DefaultWindow)}
}

// Append adds one sample per run and keeps the last Window samples.
// Runs of a different benchmark definition replace the window: samples of
// another definition are not comparable.
func (f *File) Append(res *result.File, p Provenance) {
	if f.DefinitionHash != res.DefinitionHash {
		f.Samples, f.Calibration, f.DefinitionHash = nil, nil, res.DefinitionHash
	}
	f.Env = res.Env
	for _, r := range res.Runs {
		f.Samples = append(f.Samples, Sample{Commit: p.Commit, Ref: p.Ref, Job: p.Job, Time: p.Time, Metrics: copyMetrics(r.Metrics)})
	}
	f.Samples = slices.Clone(f.Samples[max(len(f.Samples)-f.Window, 0):])
}

// Runs returns the samples as runs, which is all the verdict needs of them.
func (f *File) Runs() []result.Run {
	runs := make([]result.Run, len(f.Samples))
	for i, s := range f.Samples {
		runs[i] = result.Run{Index: i, Started: s.Time, Metrics: copyMetrics(s.Metrics)}
	}
	return runs
}

// Jobs counts the distinct jobs in the window (S_b of the noise model).
func (f *File) Jobs() int {
	seen := map[string]bool{}
	for _, s := range f.Samples {
		seen[s.Job] = true
	}
	return len(seen)
}

func copyMetrics(m map[string]float64) map[string]float64 {
	c := make(map[string]float64, len(m))
	maps.Copy(c, m)
	return c
}
