package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func cmdImport(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("import", "import [--format F] [-o result.json] FILE...", e.stderr)
	format := fs.String("format", "", "the `format` of every file (default: detected from content); one of "+strings.Join(importer.Names(), ", "))
	out := fs.String("o", "result.json", "write the result JSON to `file`")
	name := fs.String("name", "", "benchmark `name` to record in the result (default: imported)")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageErr("import needs at least one file")
	}
	if _, ok := importer.Lookup(*format); *format != "" && !ok {
		return usageErr("unknown --format %q; known: %s", *format, strings.Join(importer.Names(), ", "))
	}
	res := &result.File{Schema: result.SchemaVersion, Benchmark: cmp.Or(*name, "imported"), Created: time.Now().UTC()}
	var formats []string
	for _, path := range files {
		im, err := importer.ReadContext(ctx, path, *format)
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err != nil {
			return pipeline.Usage.Wrap(err)
		}
		if !slices.Contains(formats, im.Format) {
			formats = append(formats, im.Format)
		}
		how := map[bool]string{true: "detected " + im.Format, false: "read as " + im.Format + " (--format)"}[*format == ""]
		for _, run := range im.Runs {
			run.Index = len(res.Runs)
			res.Runs = append(res.Runs, *run)
			fmt.Fprintf(e.stderr, "%s: %s: %s, %d metrics\n", path, how, requestCount(run.Requests), len(run.Metrics))
			for _, n := range run.Notes {
				fmt.Fprintf(e.stderr, "%s: note: %s\n", path, n)
			}
		}
	}
	res.Source = strings.Join(formats, ", ")
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err := result.WriteFile(*out, res); err != nil {
		return pipeline.Runtime.Wrap(err)
	}
	report.WriteRunTable(e.stdout, res)
	fmt.Fprintf(e.stdout, "\n%d runs written to %s\n", len(res.Runs), *out)
	return nil
}

// errInterrupted is an import stopped by SIGINT or SIGTERM: a runtime
// failure (exit 3), as a benchmark's, with no result written.
var errInterrupted = pipeline.Runtime.Wrap(errors.New("interrupted: no result was written"))

// requestCount says how many requests a run holds, or that its file does
// not count them: never a count of 0 it does not have.
func requestCount(r result.Requests) string {
	if r.Counted&result.CountTotal == 0 {
		return "requests not counted"
	}
	return fmt.Sprintf("%d requests", r.Total)
}
