package report

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
)

// MarkerPrefix starts the hidden marker that identifies tailgate's sticky
// PR comment: the full marker is `<!-- tailgate:NAME -->`.
const MarkerPrefix = "<!-- tailgate:"

// Marker returns the hidden marker of the sticky comment of benchmark name.
// Characters that could end an HTML comment are replaced, and a name
// longer than maxMarkerName bytes is cut.
func Marker(name string) string {
	safe := markerUnsafe.ReplaceAllString(name, "_")
	return MarkerPrefix + safe[:min(len(safe), maxMarkerName)] + " -->"
}

// maxMarkerName bounds the name in a marker: far above any benchmark name.
const maxMarkerName = 100

var markerUnsafe = regexp.MustCompile(`[^A-Za-z0-9._/-]|-{2,}`)

// Markdown opening and closing of the collapsed details section, which
// ci/mdtrunc (job summary, PR comment) keeps balanced when it cuts.
const (
	detailsOpen  = "<details>"
	detailsClose = "</details>"
)

// MaxMarkdownBytes bounds the Markdown report. GitHub takes at most 65,536
// characters in a comment; the report stays below that with room for the
// marker and gh's truncation note, so that the comment is never cut (a cut
// would break the chart). Tables and lists that do not fit say how many of
// their rows were left out.
const MaxMarkdownBytes = 60000 - 2000

// WriteMarkdown writes the report for a PR comment or a job summary (see
// Markdown).
func WriteMarkdown(w io.Writer, in Input) error {
	_, err := io.WriteString(w, Markdown(in))
	return err
}

// Markdown returns the report for a PR comment or a job summary, read
// top-down in ten seconds: the marker; the one-line verdict; the gated
// metrics, each with baseline → head, change, floor and verdict; how a
// sequential A/B job stopped and what the gate can detect; one chart, of
// the metric that decided (a regression's, else the one nearest its
// limit); where both sides have per-step figures, the steps base → head,
// those that moved beyond their noise first; warnings; then, collapsed,
// the notes, the reported-only metrics, the rest of the steps and the
// error classes; and the line that says what was compared. Every string
// that tailgate did not write goes through mdText; no note names a file
// of the runner by its absolute path.
func Markdown(in Input) string {
	v := in.Verdict
	tail := "<sub>" + contextLine(in, mdText) + "</sub>\n"
	d := mdDoc{left: MaxMarkdownBytes - len(tail)}
	d.write(Marker(in.Name) + "\n")
	d.write(fmt.Sprintf("### %s tailgate · %s: %s\n\n", icon(v.Outcome), mdText(in.Name), headline(in, mdText)))
	gated, reported := splitGated(v.Findings)
	if len(gated) > 0 {
		c := columnsOf(v)
		d.rows(fmt.Sprintf("| gated metric | %s → head | change | %s | %s | verdict |\n|---|---:|---:|---:|---:|---|\n", sideWord(v), c.limitHead, c.testHead),
			mapped(gated, func(f gate.Finding) string { return gatedRow(f, c) }), "\n")
		if note := centreNote(v); note != "" {
			d.write(note + "\n\n")
		}
	}
	for _, line := range []string{sequentialLine(v.Sequential, mdText), detectLine(v, mdText)} {
		if line != "" {
			d.write(line + "\n\n")
		}
	}
	if ranked := decisive(seriesOf(in)); len(ranked) > 0 {
		block, caption := mermaidChart(ranked[0])
		d.write(block + caption + "\n\n")
	}
	cs := stepChanges(in.Base, in.Head)
	if hasBaseSteps(cs) {
		head, rows := stepChangeTable(cs[:min(len(cs), maxCommentSteps)], cs)
		d.rows("**"+stepsTitle(in)+"**\n\n"+head, rows, "\n")
	}
	d.list("**Warnings**\n\n", "\n", "⚠️ ", warningsOf(in))
	d.list("**"+statementsTitle(in)+"**\n\n", "\n", "", statementLines(in, markdownStatements, clipped(queryRunes)))
	// Only the job's own notes name the runner's files; what a load tool,
	// an artifact or the service said keeps its paths (an endpoint such as
	// /api/v1/users is not a file).
	own := slices.Clone(in.Notes)
	for i, n := range own {
		own[i] = unpathed(n)
	}
	in.Notes = own
	notes := slices.Concat(findingNotes(gated, lowConfidence), notesOf(in))
	notes = append(notes, targetLogNotes(in)...) // the job summary's: the comment has none (publish.StickyComment)
	ours := slices.Concat(provenanceNote(in.TriggerRun), trendNote(in.TrendURL))
	d.list(detailsOpen+"<summary>Notes</summary>\n\n", "\n"+detailsClose+"\n\n", "", notes, ours...)
	if len(reported) > 0 {
		d.details(fmt.Sprintf("%d reported-only %s (not gated)", len(reported), plural(len(reported), "metric", "metrics")),
			reportedHeader(v), mapped(reported, func(f gate.Finding) string { return reportedRow(f, v.Sequential != nil) }))
	}
	writeMarkdownDetails(&d, in, cs)
	d.b.WriteString(tail)
	return d.b.String()
}

// absPath is an absolute file path of two parts or more, as the job's own
// notes name the runner's files (a side's tree, the noise file): the
// comment names them by their last part only, since the runner's
// temporary directory means nothing on the reviewer's machine.
var absPath = regexp.MustCompile(`(^|[\s(=])(/[^\s/,;()'"]+)+/([^\s/,;()'"]*[^\s/,;()'".:])`)

// unpathed is note with each absolute path cut to "…/" and its last part.
func unpathed(note string) string { return absPath.ReplaceAllString(note, "$1…/$3") }

func mapped[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func gatedRow(f gate.Finding, c columns) string {
	verdict := outcomeWord(f.Outcome)
	if f.Outcome == gate.MetricRegression {
		verdict = "❌ **regression**"
	}
	return fmt.Sprintf("| **%s** | %s | %s | %s | %s | %s |\n", orDash(mdText(f.Label)), fromTo(f), formatChange(f),
		c.limit(f), c.test(f), verdict)
}

// reportedHeader heads the reported-only table: with the p-value of a
// comparison of samples; a sequential A/B has none for them (they are not
// judged), so no column stands empty.
func reportedHeader(v gate.Verdict) string {
	if v.Sequential != nil {
		return "| metric | base → head | change | note |\n|---|---:|---:|---|\n"
	}
	return "| metric | baseline → head | change | p | note |\n|---|---:|---:|---:|---|\n"
}

func reportedRow(f gate.Finding, sequential bool) string {
	p := " " + formatP(f.P) + " |"
	if sequential {
		p = ""
	}
	return fmt.Sprintf("| %s | %s | %s |%s %s |\n", mdText(f.Label), fromTo(f), formatChange(f), p, mdText(tableNote(f)))
}

// sideWord names the side judged against in a table: the baseline, or in
// A/B the base build.
func sideWord(v gate.Verdict) string {
	if v.Sequential != nil {
		return "base"
	}
	return "baseline"
}

// orDash stands in for text that shows nothing, so that a cell or an
// emphasis never ends up empty ("****" is a thematic break).
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func icon(o gate.Outcome) string {
	switch o {
	case gate.Regression:
		return "❌"
	case gate.Inconclusive:
		return "⚠️"
	}
	return "✅"
}

// maxCommentSteps is how many steps the comment shows base → head before
// it collapses the rest, which moved less: the comment stays short.
const maxCommentSteps = 5

// writeMarkdownDetails writes, collapsed, the steps (where the steps are
// shown base → head above: those past maxCommentSteps, which moved less;
// else the head's figures) and the head runs' error classes.
func writeMarkdownDetails(d *mdDoc, in Input, cs []stepChange) {
	var rows []string
	if hasBaseSteps(cs) {
		if rest := cs[min(len(cs), maxCommentSteps):]; len(rest) > 0 {
			head, rows := stepChangeTable(rest, cs)
			d.details(fmt.Sprintf("%d more %s (they moved less)", len(rest), plural(len(rest), "step", "steps")), head, rows)
		}
	} else if len(cs) > 0 {
		rows = append(rows, "| step | requests | failed | p50 | p95 |\n|---|---:|---:|---:|---:|\n")
		for _, c := range cs {
			s := c.Head
			rows = append(rows, fmt.Sprintf("| %s | %d | %d | %s | %s |\n", mdText(s.Name), s.Requests, s.Failed, formatValue(s.P50, "ms"), formatValue(s.P95, "ms")))
		}
	}
	errs := errorClasses(in.Head)
	if len(errs) > 0 && !hasBaseSteps(cs) {
		rows = append(rows, "\n"+errorClassHead)
	}
	for _, e := range errs {
		rows = append(rows, fmt.Sprintf("| %s | %s | %d | %s |\n", mdText(e.Class), mdText(e.Step), e.Count, mdText(e.Sample)))
	}
	switch {
	case hasBaseSteps(cs) && len(errs) > 0:
		d.details("Error classes of the head runs", errorClassHead, rows)
	case len(rows) > 0:
		d.details("Per-step figures and error classes of the head runs", "", rows)
	}
}

// stepChangeTable is the Markdown table of the steps cs base → head: its
// head and rows, with a column of error rates only where a step of all
// failed a request (a column of "none" would take a phone's width).
func stepChangeTable(cs, all []stepChange) (string, []string) {
	failed := slices.ContainsFunc(all, func(c stepChange) bool { return !c.Errors.none() })
	head := "| step | p50 | p95 |\n|---|---:|---:|\n"
	if failed {
		head = "| step | p50 | p95 | errors |\n|---|---:|---:|---:|\n"
	}
	return head, mapped(cs, func(c stepChange) string {
		row := fmt.Sprintf("| %s | %s | %s |", orDash(mdText(c.Name)), figureCell(c.P50, "ms", true), figureCell(c.P95, "ms", true))
		if failed {
			row += " " + figureCell(c.Errors, "%", true) + " |"
		}
		return row + "\n"
	})
}

// errorClassHead heads the Markdown table of error classes.
const errorClassHead = "| error class | step | count | sample |\n|---|---|---:|---|\n"

// mdDoc builds the Markdown report within MaxMarkdownBytes: a section
// that does not fit is left out, a table or list that does not fit whole
// keeps the rows that fit and says how many it left out.
type mdDoc struct {
	b    strings.Builder
	left int
}

// write appends s if it fits.
func (d *mdDoc) write(s string) {
	if len(s) <= d.left {
		d.b.WriteString(s)
		d.left -= len(s)
	}
}

// omitted is the line that says how many rows did not fit.
func omitted(n int) string {
	return fmt.Sprintf("\n_… %d more %s: see report.json or the HTML report (`--html`)._\n", n, plural(n, "row", "rows"))
}

// rows appends head and as many rows as fit, keeping room for end, then
// end; nothing when not even head fits.
func (d *mdDoc) rows(head string, rows []string, end string) {
	reserve := len(end) + len(omitted(len(rows)))
	if len(head)+reserve > d.left {
		return
	}
	d.write(head)
	for i, r := range rows {
		if len(r)+reserve > d.left {
			d.write(omitted(len(rows) - i))
			break
		}
		d.write(r)
	}
	d.write(end)
}

// list writes the items, each through mdText, then the items tailgate
// wrote itself (ours, as Markdown), after head and before end.
func (d *mdDoc) list(head, end, prefix string, items []string, ours ...string) {
	var lines []string
	for _, it := range items {
		if shown := mdText(it); shown != "" { // an item that shows nothing is left out, not shown empty
			lines = append(lines, "- "+prefix+shown+"\n")
		}
	}
	for _, it := range ours {
		lines = append(lines, "- "+prefix+it+"\n")
	}
	if len(lines) == 0 {
		return
	}
	d.rows(head, lines, end)
}

// runLink is the allow-list of the one link the report writes: an https
// address of a workflow run, made of characters that cannot end a
// Markdown link destination or start markup.
var runLink = regexp.MustCompile(`^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?/[A-Za-z0-9._~-]+/[A-Za-z0-9._~-]+/actions/runs/([0-9]{1,20})$`)

// provenanceNote says which run's report a comment was posted from, with
// a link to it when the address passes runLink, else as inert text.
func provenanceNote(url string) []string {
	if url == "" {
		return nil
	}
	const rest = "; its figures come from the pull request's own workflow run."
	m := runLink.FindStringSubmatch(url)
	if m == nil {
		return []string{"Posted from the report of run " + mdText(url) + rest}
	}
	return []string{fmt.Sprintf("Posted from the report of [workflow run %s](%s)%s", m[2], url, rest)}
}

// trendLink is the allow-list of a trend page's address: https, a host,
// and a path of plain characters (no parentheses, brackets, quotes or
// spaces that could end the Markdown link or start another).
var trendLink = regexp.MustCompile(`^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~%/+-]*)?$`)

// trendNote links the trend page of main's history (the trend_url input),
// or shows an address off the allow-list as inert text.
func trendNote(url string) []string {
	switch {
	case url == "":
		return nil
	case len(url) > 512 || !trendLink.MatchString(url):
		return []string{"Trend of main: " + mdText(url)}
	}
	return []string{fmt.Sprintf("[Trend of main](%s): each gated metric over its recorded jobs, with the commits where one shifted.", url)}
}

// details writes a collapsed section with its summary, a table head and
// rows; the closing tag always follows what was written.
func (d *mdDoc) details(summary, head string, rows []string) {
	d.rows(detailsOpen+"<summary>"+summary+"</summary>\n\n"+head, rows, "\n"+detailsClose+"\n\n")
}

// NoVerdictMarkdown is the job summary of a run that stopped before it could
// judge: what failed, and the exit code it ends with. The error may quote a
// config or a server: each of its lines is a list item through mdText.
func NoVerdictMarkdown(name string, code int, err error) string {
	var lines strings.Builder
	for i, line := range strings.Split(fmt.Sprint(err), "\n") {
		if i == maxListItems {
			break
		}
		if line = mdText(line); line != "" {
			lines.WriteString("- " + line + "\n")
		}
	}
	return fmt.Sprintf("%s\n### ⚠️ tailgate · %s: no verdict\n\ntailgate stopped before it could judge (exit code %d):\n\n%s",
		Marker(name), orDash(mdText(name)), code, lines.String())
}
