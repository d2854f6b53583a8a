package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/importer"
	_ "github.com/tailgate-ci/tailgate/internal/importer/all" // every foreign format
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() {
	register("compare", "judge two sets of result files (tailgate, k6, Locust, JMeter, Gatling, vegeta) without running", cmdCompare)
}

func cmdCompare(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("compare", "compare [flags] BASE... -- HEAD...", e.stderr)
	cfgPath := fs.String("c", "", "take the gate settings (metrics, floors, alpha) from this benchmark `file`")
	format := fs.String("format", "", "read every foreign file as this `format` instead of detecting it")
	var rf reportFlags
	rf.register(fs)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	baseFiles, headFiles, err := splitSides(files)
	if err != nil {
		return err
	}
	base, err := readRunSet(baseFiles, *format)
	if err != nil {
		return err
	}
	head, err := readRunSet(headFiles, *format)
	if err != nil {
		return err
	}
	var cfg *config.Config
	if *cfgPath != "" {
		if cfg, err = config.LoadFile(*cfgPath); err != nil {
			return withCode(ExitUsage, err)
		}
	}
	v := judgeRuns(base, head, policyFor(cfg, nil))
	src := fmt.Sprintf("%d file(s), %d runs", len(baseFiles), len(base.Runs))
	if err := present(e, rf, judged{name: head.Benchmark, mode: "compare", baselineSource: src, verdict: v, head: head}); err != nil {
		return err
	}
	return verdictExit(v, rf.failOnInconclusive)
}

// splitSides splits BASE... -- HEAD...
func splitSides(args []string) (base, head []string, err error) {
	i := slices.Index(args, "--")
	if i < 0 {
		return nil, nil, usageErr("compare needs BASE... -- HEAD... (the -- separates the two sets)")
	}
	base, head = args[:i], args[i+1:]
	if len(base) == 0 || len(head) == 0 {
		return nil, nil, usageErr("compare needs at least one file on each side of --")
	}
	return base, head, nil
}

// readRunSet reads result files into one set of runs: a tailgate result
// file gives all its runs, a foreign file one run.
func readRunSet(paths []string, format string) (*result.File, error) {
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
	if set.Benchmark == "" {
		set.Benchmark = "compare"
	}
	return set, nil
}

// readAnyResult reads a tailgate result file, or imports a foreign one.
// The file is read once: the bytes that were probed are the ones decoded.
func readAnyResult(path, format string) (*result.File, error) {
	if format == "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, withCode(ExitUsage, err)
		}
		if isTailgateResult(data) {
			f, err := result.Decode(bytes.NewReader(data))
			if err != nil {
				return nil, withCode(ExitUsage, fmt.Errorf("reading %s: %w", path, err))
			}
			return f, nil
		}
	}
	im, err := importer.Read(path, format)
	if err != nil {
		return nil, withCode(ExitUsage, err)
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

// readResults reads a tailgate result file; a bad file is bad input.
func readResults(path string) (*result.File, error) {
	f, err := result.ReadFile(path)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return f, nil
}
