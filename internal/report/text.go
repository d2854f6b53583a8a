package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// WriteText writes the terminal report: the verdict, the metric table, what
// the gate can detect, warnings, notes, and the head runs' per-step figures
// and error classes.
func WriteText(w io.Writer, in Input) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tailgate: %s: %s\n", in.Name, strings.ToUpper(string(in.Verdict.Outcome)))
	fmt.Fprintf(&b, "  %s\n", headline(in))
	fmt.Fprintf(&b, "  %s\n\n", contextLine(in))
	if len(in.Verdict.Findings) > 0 {
		writeTextTable(&b, in.Verdict)
		b.WriteString("\n")
	}
	for _, line := range []string{sequentialLine(in.Verdict), detectLine(in.Verdict)} {
		if line != "" {
			b.WriteString(line + "\n\n")
		}
	}
	writeTextList(&b, "Warnings", "!", stats.Messages(in.Verdict.Warnings))
	writeTextList(&b, "Notes", "-", append(findingNotes(in.Verdict), in.Notes...))
	writeTextDetails(&b, in)
	_, err := io.WriteString(w, b.String())
	return err
}

func contextLine(in Input) string {
	parts := []string{}
	if in.Mode != "" {
		parts = append(parts, "mode "+in.Mode)
	}
	if in.BaselineSource != "" {
		parts = append(parts, "baseline "+in.BaselineSource)
	}
	if s := in.Verdict.Sequential; s != nil {
		parts = append(parts, fmt.Sprintf("%d %s of base and head", s.Pairs, plural(s.Pairs, "pair", "pairs")))
	} else {
		parts = append(parts, fmt.Sprintf("%d head %s vs %d baseline %s", in.Verdict.HeadRuns,
			plural(in.Verdict.HeadRuns, "run", "runs"), in.Verdict.BaseRuns, plural(in.Verdict.BaseRuns, "sample", "samples")))
	}
	return strings.Join(parts, " · ")
}

func writeTextTable(b *strings.Builder, v gate.Verdict) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tbaseline\thead\tchange\tfloor\tp\tverdict")
	for _, f := range v.Findings {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Label, formatValue(f.BaseMedian, f.Unit),
			formatValue(f.HeadMedian, f.Unit), formatChange(f), formatFloor(f), formatP(f.P), outcomeWord(f.Outcome))
	}
	tw.Flush()
}

func writeTextList(b *strings.Builder, title, bullet string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title + ":\n")
	for _, it := range items {
		fmt.Fprintf(b, "  %s %s\n", bullet, it)
	}
	b.WriteString("\n")
}

func writeTextDetails(b *strings.Builder, in Input) {
	if st := steps(in.Head); len(st) > 0 {
		fmt.Fprintf(b, "Per step (head, %d %s):\n", len(in.Head), plural(len(in.Head), "run", "runs"))
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  step\trequests\tfailed\tp50\tp95")
		for _, s := range st {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\n", s.Name, s.Requests, s.Failed, formatValue(s.P50, "ms"), formatValue(s.P95, "ms"))
		}
		tw.Flush()
		b.WriteString("\n")
	}
	if errs := errorClasses(in.Head); len(errs) > 0 {
		b.WriteString("Errors (head):\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  class\tstep\tcount\tsample")
		for _, e := range errs {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", e.Class, e.Step, e.Count, oneLine(e.Sample))
		}
		tw.Flush()
		b.WriteString("\n")
	}
}

// oneLine folds line breaks so that a sample message stays in its cell.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
