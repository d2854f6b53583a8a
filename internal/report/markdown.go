package report

import (
	"cmp"
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

// Marker returns the hidden marker of name's sticky comment, without
// characters that could end an HTML comment, cut at maxMarkerName bytes.
func Marker(name string) string {
	safe := markerUnsafe.ReplaceAllString(name, "_")
	return MarkerPrefix + safe[:min(len(safe), maxMarkerName)] + " -->"
}

const maxMarkerName = 100

var markerUnsafe = regexp.MustCompile(`[^A-Za-z0-9._/-]|-{2,}`)

// Markdown opening and closing of the collapsed details section, which
// ci/mdtrunc (job summary, PR comment) keeps balanced when it cuts.
const (
	detailsOpen  = "<details>"
	detailsClose = "</details>"
)

// MaxMarkdownBytes bounds the Markdown report below GitHub's 65,536 characters, with room for the
// marker and gh's note: a cut comment would break the chart.
const MaxMarkdownBytes = 60000 - 2000

func WriteMarkdown(w io.Writer, in Input) error {
	_, err := io.WriteString(w, Markdown(in))
	return err
}

// Markdown returns the report for a PR comment or job summary, read in ten seconds: the verdict,
// the gated table, one chart of what decided, the steps that moved, warnings; the rest collapsed.
// Untrusted text goes through mdText; no note names a runner's file by its absolute path.
func Markdown(in Input) string {
	v := in.Verdict
	tail := "<sub>" + contextLine(in, mdText) + "</sub>\n"
	d := mdDoc{left: MaxMarkdownBytes - len(tail)}
	d.write(Marker(in.Name) + "\n")
	icon := cmp.Or(map[gate.Outcome]string{gate.Regression: "❌", gate.Inconclusive: "⚠️"}[v.Outcome], "✅")
	d.write(fmt.Sprintf("### %s tailgate · %s: %s\n\n", icon, mdText(in.Name), headline(in, mdText)))
	gated, reported := splitGated(v.Findings)
	d.gatedTable(v, gated)
	for _, line := range judgedLines(v, mdText) {
		d.write(line + "\n\n")
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
	// Only the job's own notes name the runner's files (an endpoint such
	// as /api/v1/users in a tool's note is not a file).
	in.Notes = mapped(in.Notes, unpathed)
	notes := shownNotes(in, gated, lowConfidence) // the target logs' notes are the job summary's: the comment has none (publish.StickyComment)
	ours := slices.Concat(provenanceNote(in.TriggerRun), trendNote(in.TrendURL))
	d.list(detailsOpen+"<summary>Notes</summary>\n\n", "\n"+detailsClose+"\n\n", "", notes, ours...)
	d.reportedTable(v, reported)
	d.stepDetails(cs, errorClasses(in.Head))
	d.b.WriteString(tail)
	return d.b.String()
}

// gatedTable is the table of the gated metrics, with what its columns are in a sequential A/B.
func (d *mdDoc) gatedTable(v gate.Verdict, gated []gate.Finding) {
	if len(gated) == 0 {
		return
	}
	c := columnsOf(v)
	// The verdict, the change and its bounds first: a phone shows the first columns.
	d.rows(fmt.Sprintf("| gated metric | verdict | change | %s | %s | %s → head |\n|---|---|---:|---:|---:|---:|\n", c.testHead, c.limitHead, sideWord(v)),
		mapped(gated, func(f gate.Finding) string {
			verdict := map[bool]string{true: "❌ **regression**", false: outcomeWord(f.Outcome)}[f.Outcome == gate.MetricRegression]
			return fmt.Sprintf("| **%s** | %s | %s | %s | %s | %s |\n", orDash(mdText(f.Label)), verdict, formatChange(f), c.test(f), c.limit(f), fromTo(f))
		}), "\n")
	if note := centreNote(v); note != "" {
		d.write(note + "\n\n")
	}
}

// reportedTable is the collapsed table of the metrics reported, not gated; a sequential A/B has no p for them, so
// no column stands empty.
func (d *mdDoc) reportedTable(v gate.Verdict, reported []gate.Finding) {
	if len(reported) == 0 {
		return
	}
	pHead, align, p := " p |", "---:|", func(f gate.Finding) string { return " " + formatP(f.P) + " |" }
	if v.Sequential != nil {
		pHead, align, p = "", "", func(gate.Finding) string { return "" }
	}
	head := fmt.Sprintf("| metric | %s → head | change |%s note |\n|---|---:|---:|%s---|\n", sideWord(v), pHead, align)
	rows := mapped(reported, func(f gate.Finding) string {
		return fmt.Sprintf("| %s | %s | %s |%s %s |\n", mdText(f.Label), fromTo(f), formatChange(f), p(f), mdText(noteOf(f, lowConfidence)))
	})
	d.details(fmt.Sprintf("%d reported-only %s (not gated)", len(reported), plural(len(reported), "metric", "metrics")), head, rows)
}

// stepDetails collapses the steps past those shown (or the head's figures) and the head runs' error classes.
func (d *mdDoc) stepDetails(cs []stepChange, errs []errorFigures) {
	var rows []string
	if hasBaseSteps(cs) {
		if rest := cs[min(len(cs), maxCommentSteps):]; len(rest) > 0 {
			head, rows := stepChangeTable(rest, cs)
			d.details(fmt.Sprintf("%d more %s (they moved less)", len(rest), plural(len(rest), "step", "steps")), head, rows)
		}
	} else if len(cs) > 0 {
		rows = append([]string{"| step | requests | failed | p50 | p95 |\n|---|---:|---:|---:|---:|\n"}, mapped(cs, func(c stepChange) string {
			s := c.Head
			return fmt.Sprintf("| %s | %d | %d | %s | %s |\n", mdText(s.Name), s.Requests, s.Failed, formatValue(s.P50, "ms"), formatValue(s.P95, "ms"))
		})...)
	}
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

// absPath is an absolute path as the job's notes name the runner's files:
// the comment keeps its last part, the directory means nothing elsewhere.
var absPath = regexp.MustCompile(`(^|[\s(=])(/[^\s/,;()'"]+)+/([^\s/,;()'"]*[^\s/,;()'".:])`)

func unpathed(note string) string { return absPath.ReplaceAllString(note, "$1…/$3") }

func mapped[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// sideWord names the side judged against in a table: the baseline, or in A/B the base build.
func sideWord(v gate.Verdict) string {
	return map[bool]string{true: "base", false: "baseline"}[v.Sequential != nil]
}

// orDash stands in for text that shows nothing, so that a cell or an
// emphasis never ends up empty ("****" is a thematic break).
func orDash(s string) string { return cmp.Or(s, "—") }

// maxCommentSteps is how many steps the comment shows base → head before
// it collapses the rest, which moved less: the comment stays short.
const maxCommentSteps = 5

// stepChangeTable is the table of steps cs; an errors column only where
// any step failed a request (a column of "none" takes a phone's width).
func stepChangeTable(cs, all []stepChange) (string, []string) {
	failed := slices.ContainsFunc(all, func(c stepChange) bool { return !c.Errors.none() })
	head := map[bool]string{true: "| step | p50 | p95 | errors |\n|---|---:|---:|---:|\n", false: "| step | p50 | p95 |\n|---|---:|---:|\n"}[failed]
	return head, mapped(cs, func(c stepChange) string {
		errs := map[bool]string{true: " " + figureCell(c.Errors, "%", true) + " |"}[failed]
		return fmt.Sprintf("| %s | %s | %s |%s\n", orDash(mdText(c.Name)), figureCell(c.P50, "ms", true), figureCell(c.P95, "ms", true), errs)
	})
}

const errorClassHead = "| error class | step | count | sample |\n|---|---|---:|---|\n"

// mdDoc builds the Markdown within MaxMarkdownBytes: what does not fit is left out, with how many rows.
type mdDoc struct {
	b    strings.Builder
	left int
}

func (d *mdDoc) write(s string) {
	if len(s) <= d.left {
		d.b.WriteString(s)
		d.left -= len(s)
	}
}

func omitted(n int) string {
	return fmt.Sprintf("\n_… %d more %s: see report.json or the HTML report (`--html`)._\n", n, plural(n, "row", "rows"))
}

// rows appends head and as many rows as fit, keeping room for end, then end; nothing when not even head fits.
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
	shown := slices.DeleteFunc(mapped(items, mdText), func(s string) bool { return s == "" }) // an item that shows nothing is left out
	if lines := append(shown, ours...); len(lines) > 0 {
		d.rows(head, mapped(lines, func(s string) string { return "- " + prefix + s + "\n" }), end)
	}
}

// runLink is the allow-list of the run link: https, a workflow run, no
// character that ends a link destination or starts markup.
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

// trendLink is the allow-list of a trend page's address: https, a host, a path of plain characters.
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

// NoVerdictMarkdown is the job summary of a run that stopped before a
// verdict: each line of the error (it may quote a config) through mdText.
func NoVerdictMarkdown(name string, code int, err error) string {
	var lines strings.Builder
	all := strings.Split(fmt.Sprint(err), "\n")
	for _, line := range all[:min(len(all), maxListItems)] {
		if line = mdText(line); line != "" {
			lines.WriteString("- " + line + "\n")
		}
	}
	return fmt.Sprintf("%s\n### ⚠️ tailgate · %s: no verdict\n\ntailgate stopped before it could judge (exit code %d):\n\n%s",
		Marker(name), orDash(mdText(name)), code, lines.String())
}
