package cli

import (
	"flag"
	"io"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// reportFlags choose the reports a judging command writes.
type reportFlags struct {
	jsonPath           string
	markdownPath       string
	failOnInconclusive bool
}

func (r *reportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.jsonPath, "report", "", "write the JSON report to `file`")
	fs.StringVar(&r.markdownPath, "markdown", "", "write the Markdown report (PR comment, job summary) to `file`")
	fs.BoolVar(&r.failOnInconclusive, "fail-on-inconclusive", false, "exit 1 when the verdict is inconclusive")
}

// judged is a verdict with what the reports say around it.
type judged struct {
	name, mode, baselineSource string
	verdict                    gate.Verdict
	head                       *result.File
	notes                      []string
}

func (j judged) input() report.Input {
	return report.Input{Name: j.name, Mode: j.mode, BaselineSource: j.baselineSource, Verdict: j.verdict, Head: j.head.Runs, Notes: j.notes}
}

// present prints the terminal report and writes the files asked for.
func present(e env, rf reportFlags, j judged) error {
	in := j.input()
	if err := report.WriteText(e.stdout, in); err != nil {
		return withCode(ExitRuntime, err)
	}
	if rf.jsonPath != "" {
		if err := atomicfile.Write(rf.jsonPath, func(w io.Writer) error { return report.WriteJSON(w, in) }); err != nil {
			return withCode(ExitRuntime, err)
		}
	}
	if rf.markdownPath != "" {
		if err := atomicfile.Write(rf.markdownPath, func(w io.Writer) error { return report.WriteMarkdown(w, in) }); err != nil {
			return withCode(ExitRuntime, err)
		}
	}
	return nil
}
