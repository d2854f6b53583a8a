// Package publish owns where a judged comparison goes: the terminal, files
// (report.json, the Markdown report, the HTML report), the GitHub Actions step (job summary,
// annotations, outputs, through ci) and the sticky pull request comment
// (through gh). Each is a Publisher; a front end picks the ones it has, so
// that the Action is the CLI's pipeline with more publishers. Publishers
// render with report and decide nothing: an error they return fails the
// step, a failure that must not is a warning in the job log.
package publish

import (
	"context"
	"io"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
	"github.com/tailgate-ci/tailgate/internal/report"
)

// Publisher shows or stores one judged comparison.
type Publisher interface {
	Publish(ctx context.Context, in report.Input) error
}

// All publishes in to each publisher in order, and stops at the first
// error.
func All(ctx context.Context, in report.Input, pubs ...Publisher) error {
	for _, p := range pubs {
		if err := p.Publish(ctx, in); err != nil {
			return err
		}
	}
	return nil
}

// Terminal writes the text report.
type Terminal struct{ W io.Writer }

func (t Terminal) Publish(_ context.Context, in report.Input) error { return report.WriteText(t.W, in) }

// Files writes report.json and the Markdown report (PR comment, job
// summary) atomically; an empty path skips its file.
type Files struct {
	JSON, Markdown string
}

func (f Files) Publish(_ context.Context, in report.Input) error {
	if f.JSON != "" {
		if err := atomicfile.Write(f.JSON, func(w io.Writer) error { return report.WriteJSON(w, in) }); err != nil {
			return err
		}
	}
	if f.Markdown != "" {
		return atomicfile.Write(f.Markdown, func(w io.Writer) error { return report.WriteMarkdown(w, in) })
	}
	return nil
}

// HTML writes the self-contained HTML report (report.WriteHTML) atomically;
// an empty path writes nothing.
type HTML struct{ Path string }

func (h HTML) Publish(_ context.Context, in report.Input) error {
	if h.Path == "" {
		return nil
	}
	return atomicfile.Write(h.Path, func(w io.Writer) error { return report.WriteHTML(w, in) })
}
