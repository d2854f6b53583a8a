package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// MarkerPrefix starts the hidden marker that identifies tailgate's sticky
// PR comment: the full marker is `<!-- tailgate:NAME -->`.
const MarkerPrefix = "<!-- tailgate:"

// Marker returns the hidden marker of the sticky comment of benchmark name.
// Characters that could end an HTML comment are replaced.
func Marker(name string) string {
	return MarkerPrefix + markerUnsafe.ReplaceAllString(name, "_") + " -->"
}

var markerUnsafe = regexp.MustCompile(`[^A-Za-z0-9._/-]|-{2,}`)

// Markdown opening and closing of the collapsed details section, which
// ci/mdtrunc (job summary, PR comment) keeps balanced when it cuts.
const (
	detailsOpen  = "<details>"
	detailsClose = "</details>"
)

// WriteMarkdown writes the report for a PR comment or a job summary: the
// marker, a one-line verdict, the metric table, the detectable-effect line,
// warnings, notes, and a collapsed section with per-step figures and error
// classes.
func WriteMarkdown(w io.Writer, in Input) error {
	_, err := io.WriteString(w, Markdown(in))
	return err
}

// Markdown returns the Markdown report (see WriteMarkdown).
func Markdown(in Input) string {
	var b strings.Builder
	b.WriteString(Marker(in.Name) + "\n")
	fmt.Fprintf(&b, "### %s tailgate · %s: %s\n\n", icon(in.Verdict.Outcome), mdEscape(in.Name), mdEscape(headline(in)))
	if len(in.Verdict.Findings) > 0 {
		writeMarkdownTable(&b, in.Verdict)
	}
	if line := sequentialLine(in.Verdict); line != "" {
		b.WriteString(mdEscape(line) + "\n\n")
	}
	if line := detectLine(in.Verdict); line != "" {
		b.WriteString(line + "\n\n")
	}
	writeMarkdownList(&b, "Warnings", "⚠️ ", stats.Messages(in.Verdict.Warnings))
	writeMarkdownList(&b, "Notes", "", append(findingNotes(in.Verdict), in.Notes...))
	b.WriteString("<sub>" + mdEscape(contextLine(in)) + "</sub>\n")
	writeMarkdownDetails(&b, in)
	return b.String()
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

func writeMarkdownTable(b *strings.Builder, v gate.Verdict) {
	b.WriteString("| metric | baseline median | head median | change | floor | p | verdict |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---|\n")
	for _, f := range v.Findings {
		label := mdEscape(f.Label)
		if f.Gated {
			label = "**" + label + "**"
		}
		verdict := outcomeWord(f.Outcome)
		if f.Outcome == gate.MetricRegression {
			verdict = "❌ **regression**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", label, formatValue(f.BaseMedian, f.Unit),
			formatValue(f.HeadMedian, f.Unit), formatChange(f), formatFloor(f), formatP(f.P), verdict)
	}
	b.WriteString("\nGated metrics in **bold**; p is one-sided, in the direction the metric moved.\n\n")
}

func writeMarkdownList(b *strings.Builder, title, prefix string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString("**" + title + "**\n\n")
	for _, it := range items {
		b.WriteString("- " + prefix + mdEscape(it) + "\n")
	}
	b.WriteString("\n")
}

func writeMarkdownDetails(b *strings.Builder, in Input) {
	st, errs := steps(in.Head), errorClasses(in.Head)
	if len(st) == 0 && len(errs) == 0 {
		return
	}
	b.WriteString("\n" + detailsOpen + "<summary>Per-step figures and error classes of the head runs</summary>\n\n")
	if len(st) > 0 {
		b.WriteString("| step | requests | failed | p50 | p95 |\n|---|---:|---:|---:|---:|\n")
		for _, s := range st {
			fmt.Fprintf(b, "| %s | %d | %d | %s | %s |\n", mdEscape(s.Name), s.Requests, s.Failed,
				formatValue(s.P50, "ms"), formatValue(s.P95, "ms"))
		}
		b.WriteString("\n")
	}
	if len(errs) > 0 {
		b.WriteString("| error class | step | count | sample |\n|---|---|---:|---|\n")
		for _, e := range errs {
			fmt.Fprintf(b, "| %s | %s | %d | %s |\n", mdEscape(e.Class), mdEscape(e.Step), e.Count, codeSpan(e.Sample))
		}
		b.WriteString("\n")
	}
	b.WriteString(detailsClose + "\n")
}

// mdEscape keeps text from the runs and the config from breaking a table
// or injecting HTML.
func mdEscape(s string) string {
	return mdEscaper.Replace(s)
}

// mdEscaper keeps text from a report (which may come from a fork's
// artifact) inert: no HTML, no table breaks, no @mentions that notify
// people, no links or images.
var mdEscaper = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\r", " ", "\n", " ",
	"@", "@\u200b", "[", `\[`, "]", `\]`, "!", `\!`)

// codeSpan shows a sample message verbatim in a table cell.
func codeSpan(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(oneLine(s), "`", "'")
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

// NoVerdictMarkdown is the job summary of a run that stopped before it could
// judge: what failed, and the exit code it ends with.
func NoVerdictMarkdown(name string, code int, err error) string {
	return fmt.Sprintf("%s\n### ⚠️ tailgate · %s: no verdict\n\ntailgate stopped before it could judge (exit code %d):\n\n```\n%v\n```\n", Marker(name), name, code, err)
}
