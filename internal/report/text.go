package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

func WriteText(w io.Writer, in Input) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tailgate: %s: %s\n  %s\n  %s\n\n", in.Name, strings.ToUpper(string(in.Verdict.Outcome)), headline(in, plainText), contextLine(in, plainText))
	if v := in.Verdict; len(v.Findings) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		c := columnsOf(v)
		fmt.Fprintf(tw, "metric\t%s\thead\tchange\t%s\t%s\tverdict\n", sideWord(v), c.limitHead, c.testHead)
		for _, f := range v.Findings {
			base, head := sides(f)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Label, formatValue(base, f.Unit),
				formatValue(head, f.Unit), formatChange(f), c.limit(f), c.test(f), outcomeWord(f.Outcome))
		}
		tw.Flush()
		if note := centreNote(v); note != "" {
			fmt.Fprintln(&b, note)
		}
		b.WriteString("\n")
	}
	writeSparklines(&b, in)
	for _, line := range judgedLines(in.Verdict, plainText) {
		b.WriteString(line + "\n\n")
	}
	writeTextList(&b, "Warnings", "!", warningsOf(in))
	writeTextList(&b, "Notes", "-", shownNotes(in, in.Verdict.Findings, notExact))
	writeTextList(&b, statementsTitle(in), "-", statementLines(in, textStatements, clipped(queryRunes)))
	writeTextDetails(&b, in)
	_, err := io.WriteString(w, b.String())
	return err
}

var sparks = []rune("▁▂▃▄▅▆▇█")

// writeSparklines draws each compared gated metric's runs as bars on one
// scale, base then head: whether head sits in the base's spread shows.
func writeSparklines(b *strings.Builder, in Input) {
	all := seriesOf(in)
	if len(all) == 0 {
		return
	}
	fmt.Fprintf(b, "%s, oldest first (%s │ head, on one scale from the lowest to the highest):\n", capitalize(runWord(in, 2)), baseName(in))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, s := range all {
		base, head := lastN(s.Base, maxChartRuns), lastN(s.Head, maxChartRuns)
		lo, hi := slices.Min(slices.Concat(base, head)), slices.Max(slices.Concat(base, head))
		fmt.Fprintf(tw, "  %s\t%s │ %s\t%s … %s\n", s.Finding.Label, sparkline(base, lo, hi), sparkline(head, lo, hi),
			formatValue(lo, s.Meta.Unit), formatValue(hi, s.Meta.Unit))
	}
	tw.Flush()
	b.WriteString("\n")
}

func sparkline(values []float64, lo, hi float64) string {
	return string(mapped(values, func(v float64) rune {
		if hi > lo {
			return sparks[int(math.Round((v-lo)/(hi-lo)*float64(len(sparks)-1)))]
		}
		return sparks[len(sparks)/2]
	}))
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

// writeTextDetails writes the steps (base → head, or the head's) and the head runs' error classes.
func writeTextDetails(b *strings.Builder, in Input) {
	cs := stepChanges(in.Base, in.Head)
	if hasBaseSteps(cs) {
		writeTextRows(b, stepsTitle(in), "step\trequests\tp50\tp95\terrors", mapped(cs, func(c stepChange) string {
			return strings.Join([]string{c.Name, requestsCell(c), figureCell(c.P50, "ms", false), figureCell(c.P95, "ms", false), figureCell(c.Errors, "%", false)}, "\t")
		}))
	} else {
		writeTextRows(b, fmt.Sprintf("Per step (head, %d %s)", len(in.Head), runWord(in, len(in.Head))), "step\trequests\tfailed\tp50\tp95", mapped(cs, func(c stepChange) string {
			return fmt.Sprintf("%s\t%d\t%d\t%s\t%s", c.Name, c.Head.Requests, c.Head.Failed, formatValue(c.Head.P50, "ms"), formatValue(c.Head.P95, "ms"))
		}))
	}
	writeTextRows(b, "Errors (head)", "class\tstep\tcount\tsample", mapped(errorClasses(in.Head), func(e errorFigures) string {
		return fmt.Sprintf("%s\t%s\t%d\t%s", e.Class, e.Step, e.Count, strings.Join(strings.Fields(e.Sample), " "))
	}))
}

// writeTextRows writes a titled, indented table of tab-separated rows under head; nothing without rows.
func writeTextRows(b *strings.Builder, title, head string, rows []string) {
	if len(rows) == 0 {
		return
	}
	b.WriteString(title + ":\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, r := range append([]string{head}, rows...) {
		fmt.Fprintln(tw, "  "+r)
	}
	tw.Flush()
	b.WriteString("\n")
}
