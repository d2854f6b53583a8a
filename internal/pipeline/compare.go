package pipeline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/importer"
	_ "github.com/tailgate-ci/tailgate/internal/importer/all" // every foreign format
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
)

type CompareOptions struct {
	Base, Head *result.File
	BaseFiles  int            // how many files the base side was read from
	Config     *config.Config // when given, the gate settings
}

// Compare judges two sets of runs, neither of them measured now.
func Compare(o CompareOptions) Judged {
	v := judgeRuns(o.Base, o.Head, policyFor(o.Config, nil, nil))
	src := fmt.Sprintf("%d file(s), %d runs", o.BaseFiles, len(o.Base.Runs))
	in := report.Input{Name: o.Head.Benchmark, Mode: "compare", BaselineSource: src, Verdict: v, Head: o.Head.Runs, Base: o.Base.Runs}
	return Judged{Input: in, Head: o.Head, Base: o.Base}
}

// ReadRunSet reads result files, tailgate's or foreign (imported as
// format, or as detected when ""), into one set of runs. A file that
// cannot be read is bad input.
func ReadRunSet(paths []string, format string) (*result.File, error) {
	set := &result.File{Schema: result.SchemaVersion}
	hashes := map[string]bool{}
	for _, p := range paths {
		f, err := readAnyResult(p, format)
		if err != nil {
			return nil, err
		}
		if set.Benchmark == "" {
			set.Benchmark, set.Env, set.Source = f.Benchmark, f.Env, f.Source
		}
		hashes[f.DefinitionHash] = true
		set.Runs = append(set.Runs, f.Runs...)
	}
	if len(hashes) == 1 {
		for h := range hashes {
			set.DefinitionHash = h
		}
	}
	set.Benchmark = cmp.Or(set.Benchmark, "compare")
	return set, nil
}

// readAnyResult reads a tailgate result file, or imports a foreign one;
// the bytes probed are the ones decoded.
func readAnyResult(path, format string) (*result.File, error) {
	if format == "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, Usage.Wrap(err)
		}
		if isTailgateResult(data) {
			f, err := result.Decode(bytes.NewReader(data))
			if err != nil {
				return nil, Usage.Wrap(fmt.Errorf("reading %s: %w", path, err))
			}
			return f, nil
		}
	}
	im, err := importer.Read(path, format)
	if err != nil {
		return nil, Usage.Wrap(err)
	}
	f := &result.File{Schema: result.SchemaVersion, Source: im.Format}
	for _, run := range im.Runs {
		f.Runs = append(f.Runs, *run)
	}
	return f, nil
}

// isTailgateResult reports whether data is a JSON object with the
// "schema" and "runs" keys of tailgate's result JSON.
func isTailgateResult(data []byte) bool {
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return false
	}
	var probe struct {
		Schema *int            `json:"schema"`
		Runs   json.RawMessage `json:"runs"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Schema != nil && probe.Runs != nil
}
