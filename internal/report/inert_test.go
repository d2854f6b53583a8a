package report

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/printable"
	"github.com/tailgate-ci/tailgate/internal/report/inerttest"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// hostileCorpus is the corpus of hostile strings (testdata/hostile).
func hostileCorpus(tb testing.TB) []inerttest.Hostile { return inerttest.Corpus(tb) }

// withText puts s into every string of a report that tailgate did not
// write itself: the benchmark name, the baseline's source, metric labels
// and notes, warnings, caller notes, step names, error classes, steps and
// samples, the sequential stop reason, the baseline's commits and the
// target logs' paths. The report is the regression case, or the A/B case
// when ab is set.
func withText(s string, ab bool) Input {
	in := cloneInput(judgedCases()["regression"])
	if ab {
		in = cloneInput(judgedCases()["ab"])
		in.Head = fixtureRuns(len(in.Head), 0.88, true) // steps and errors to carry s
		seq := *in.Verdict.Sequential
		seq.Reason = s
		in.Verdict.Sequential = &seq
	}
	in.Name, in.BaselineSource = s, s
	v := &in.Verdict
	for i := range v.Findings {
		v.Findings[i].Label, v.Findings[i].Note = s, s
	}
	for i := range v.Detect {
		v.Detect[i].Label = s
	}
	for i := range v.Warnings {
		v.Warnings[i].Message = s
	}
	v.Warnings = append(v.Warnings, stats.Warning{Message: s})
	in.Notes = []string{s}
	for r := range in.Head {
		for i := range in.Head[r].Steps {
			in.Head[r].Steps[i].Name = s
		}
		for i := range in.Head[r].Errors {
			e := &in.Head[r].Errors[i]
			e.Class, e.Step, e.Sample = s, s, s
		}
	}
	for i := range in.BaseOrigins {
		in.BaseOrigins[i].Commit = s
	}
	withStatement(in.Base, s, 10) // a statement whose calls per iteration doubled, by its (server's) text
	withStatement(in.Head, s, 20)
	in.TargetLog = TargetLogs{Head: s}
	if ab {
		in.TargetLog = TargetLogs{Base: s, Head: s + ".head"}
	}
	return in
}

// judgedCases are the cases, judged once for all the tests that reuse them.
var judgedCases = sync.OnceValue(cases)

// cloneInput copies what withText changes.
func cloneInput(in Input) Input {
	in.Verdict.Findings = slices.Clone(in.Verdict.Findings)
	in.Verdict.Detect = slices.Clone(in.Verdict.Detect)
	in.Verdict.Warnings = slices.Clone(in.Verdict.Warnings)
	in.BaseOrigins = slices.Clone(in.BaseOrigins)
	in.Base, in.Head = slices.Clone(in.Base), slices.Clone(in.Head) // withStatement sets their statements
	for i := range in.Head {
		in.Head[i].Steps = slices.Clone(in.Head[i].Steps)
		in.Head[i].Errors = slices.Clone(in.Head[i].Errors)
	}
	return in
}

// wantInertMarkdown fails unless md, rendered from input with s in it,
// holds no markup from s: the problems inerttest finds, a structure that
// differs from the same report with a plain word in place of s, a second
// sticky-comment marker, or an unbalanced <details> or code fence.
func wantInertMarkdown(t *testing.T, what, md, benign string, ownLinks ...string) {
	t.Helper()
	for _, p := range inerttest.MarkdownProblems(md, ownLinks...) {
		t.Errorf("%s: %s", what, p)
	}
	if got, want := inerttest.Structure(md), inerttest.Structure(benign); got != want {
		t.Errorf("%s: the input changed the document's structure:\n got %s\nwant %s", what, got, want)
	}
	if n := strings.Count(md, MarkerPrefix); n != 1 || !strings.HasPrefix(md, MarkerPrefix) {
		t.Errorf("%s: %d sticky-comment markers (want one, first)", what, n)
	}
	if strings.Count(md, "<details") != strings.Count(md, "</details>") || strings.Count(md, "```")%2 != 0 {
		t.Errorf("%s: unbalanced <details> or code fence", what)
	}
	if len(md) > MaxMarkdownBytes {
		t.Errorf("%s: %d bytes, over MaxMarkdownBytes", what, len(md))
	}
}

// TestHostileMarkdownInert renders the hostile corpus in every untrusted
// field of the PR comment / job summary (a check and a sequential A/B
// verdict) and parses the result as GitHub does; the labels it puts in the
// charts stay inside their quoted strings of Mermaid's grammar.
func TestHostileMarkdownInert(t *testing.T) {
	t.Parallel()
	for _, ab := range []bool{false, true} {
		benign := Markdown(withText("benign", ab))
		for _, h := range hostileCorpus(t) {
			md := Markdown(withText(h.Value, ab))
			wantInertMarkdown(t, h.Name, md, benign)
			if len(charts(t, md)) == 0 {
				t.Errorf("%s: the chart is gone", h.Name)
			}
		}
	}
}

// TestHostileCommentPath sends the corpus through the path of tailgate
// comment: a report.json written with it, read back by ReadJSON (the
// artifact check), rendered by Markdown. A report ReadJSON refuses must
// say why, and only for what it refuses (control and bidirectional
// characters, overlong fields, and in names anything printable refuses);
// every other one is rendered inert. A string only a name may not hold
// (a line break, an invisible character) goes through again in the free
// text alone, which holds it, and is rendered inert there.
func TestHostileCommentPath(t *testing.T) {
	t.Parallel()
	benignIn, err := roundTrip(artifact("benign"))
	if err != nil {
		t.Fatal(err)
	}
	benign := Markdown(benignIn)
	rendered := 0
	for _, h := range hostileCorpus(t) {
		in, err := roundTrip(artifact(h.Value))
		if err != nil {
			if !refusable(h.Value) {
				t.Errorf("%s: ReadJSON refused a report it should render inert: %v", h.Name, err)
				continue
			}
			if refusableText(h.Value) {
				continue
			}
			if in, err = roundTrip(inFreeText(h.Value)); err != nil {
				t.Errorf("%s: ReadJSON refused free text it should render inert: %v", h.Name, err)
				continue
			}
		}
		rendered++
		wantInertMarkdown(t, h.Name, Markdown(in), benign)
	}
	if rendered < 20 {
		t.Errorf("only %d hostile reports were rendered: the test does not exercise the comment path", rendered)
	}
}

// artifact is the A/B report with s in every text field that report.json
// holds as free text or as a name (error classes are an enumeration
// there, and the target logs are paths: TestHostileTargetLogPath).
func artifact(s string) Input {
	in := withText(s, true)
	in.TargetLog = TargetLogs{Base: "/tmp/tailgate-base.log", Head: "/tmp/tailgate-head.log"}
	for r := range in.Head {
		for i := range in.Head[r].Errors {
			in.Head[r].Errors[i].Class = result.ErrStatus
		}
	}
	return in
}

// inFreeText is artifact(s) with every name (the benchmark, labels,
// steps) the benign word: s is left in the free text only.
func inFreeText(s string) Input {
	in := artifact(s)
	in.Name = "benign"
	v := &in.Verdict
	for i := range v.Findings {
		v.Findings[i].Label = "benign"
	}
	for i := range v.Detect {
		v.Detect[i].Label = "benign"
	}
	for r := range in.Head {
		for i := range in.Head[r].Steps {
			in.Head[r].Steps[i].Name = "benign"
		}
		for i := range in.Head[r].Errors {
			in.Head[r].Errors[i].Step = "benign"
		}
	}
	return in
}

func roundTrip(in Input) (Input, error) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, in); err != nil {
		return Input{}, err
	}
	return ReadJSON(&buf)
}

// refusable reports whether ReadJSON may refuse s: it holds a control or
// bidirectional override character, a character a name may not hold
// (printable), or is longer than a label may be.
func refusable(s string) bool {
	_, _, bad := printable.Bad(s)
	return refusableText(s) || bad || utf8.RuneCountInString(s) > maxLabelRunes
}

// refusableText reports whether ReadJSON may refuse s as free text: it
// holds a control or bidirectional override character, or is longer than
// free text may be.
func refusableText(s string) bool {
	return strings.IndexFunc(s, forbiddenRune) >= 0 || utf8.RuneCountInString(s) > maxTextRunes
}

// TestHostileTargetLogPath sends the corpus through the comment path as
// the target logs' paths of an A/B report: ReadJSON refuses a path that is
// not a plain one (a line break or another character a name may not hold,
// an address, an overlong or empty one) and every other path is rendered
// inert, in the Markdown and the text report alike.
func TestHostileTargetLogPath(t *testing.T) {
	t.Parallel()
	withPath := func(s string) Input {
		in := artifact("benign")
		in.TargetLog = TargetLogs{Base: s, Head: s + ".head"}
		return in
	}
	benignIn, err := roundTrip(withPath("benign"))
	if err != nil {
		t.Fatal(err)
	}
	benign := Markdown(benignIn)
	rendered := 0
	for _, h := range hostileCorpus(t) {
		in, err := roundTrip(withPath(h.Value))
		_, _, unprintable := printable.Bad(h.Value)
		plain := !unprintable && !strings.Contains(h.Value, "://") && strings.TrimSpace(h.Value) != "" &&
			utf8.RuneCountInString(h.Value) < maxPathRunes
		switch {
		case err != nil && plain:
			t.Errorf("%s: ReadJSON refused a plain path: %v", h.Name, err)
		case err != nil && !strings.Contains(err.Error(), "target_log.base"):
			t.Errorf("%s: refused without naming target_log.base: %v", h.Name, err)
		case err == nil && !plain:
			t.Errorf("%s: ReadJSON accepted a path that is not a plain one", h.Name)
		case err == nil:
			rendered++
			if in.TargetLog.Base != h.Value {
				t.Errorf("%s: target_log.base read back as %q", h.Name, in.TargetLog.Base)
			}
			wantInertMarkdown(t, h.Name, Markdown(in), benign)
		}
	}
	if rendered < 10 {
		t.Errorf("only %d hostile paths were rendered: the test does not exercise the path", rendered)
	}
}

func TestHostileNoVerdictMarkdown(t *testing.T) {
	t.Parallel()
	for _, h := range hostileCorpus(t) {
		msg := "config: " + h.Value + "\nsecond line: " + h.Value
		// An error's lines are its list items: the benign twin has the
		// same lines, each a plain word.
		lines := strings.Split(msg, "\n")
		for i, l := range lines {
			if mdText(l) != "" {
				lines[i] = "benign"
			}
		}
		benign := NoVerdictMarkdown("benign", 3, errors.New(strings.Join(lines, "\n")))
		wantInertMarkdown(t, h.Name, NoVerdictMarkdown(h.Value, 3, errors.New(msg)), benign)
	}
}

// TestHostileHTMLInert renders the corpus into the HTML report: every
// element and attribute is the report's own, nothing is fetched, and no
// invisible or control character of the input reaches the page.
func TestHostileHTMLInert(t *testing.T) {
	t.Parallel()
	for _, h := range hostileCorpus(t) {
		var page bytes.Buffer
		if err := WriteHTML(&page, withText(h.Value, false)); err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
		rep := inerttest.HTMLProblems(page.String())
		for _, p := range rep.Problems {
			t.Errorf("%s: %s", h.Name, p)
		}
		if i := strings.IndexFunc(page.String(), func(r rune) bool {
			return unicode.Is(unicode.Cf, r) || (unicode.IsControl(r) && r != '\n' && r != '\t')
		}); i >= 0 {
			t.Errorf("%s: the page holds an invisible or control character at byte %d", h.Name, i)
		}
		if strings.ContainsAny(h.Value, "<>") && strings.Contains(page.String(), h.Value) {
			t.Errorf("%s: the value reached the page unescaped", h.Name)
		}
	}
}

// FuzzMarkdownInert holds the comment to the same property on any text.
func FuzzMarkdownInert(f *testing.F) {
	for _, h := range hostileCorpus(f) {
		f.Add(h.Value)
	}
	benign, empty := Markdown(withText("benign", false)), Markdown(withText("", false))
	f.Fuzz(func(t *testing.T, s string) {
		twin := benign
		if mdText(s) == "" { // a note or warning that shows nothing (empty, white space) is left out, not shown empty
			twin = empty
		}
		wantInertMarkdown(t, "fuzz", Markdown(withText(s, false)), twin)
	})
}

func TestMDTextExamples(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"latency p95":                "latency p95",
		"a | b":                      `a \| b`,
		"<b>x</b>":                   "&lt;b&gt;x&lt;/b&gt;",
		"@acme/security":             "@\u200bacme/security",
		"see https://e.example/a":    "see https:\u200b//e.example/a",
		"www.e.example":              "www\u200b.e.example",
		"# title":                    `\#` + "\u200b title",
		"- item":                     `\- item`,
		"12. item":                   `12\. item`,
		"1) x":                       `1\) x`,
		"**b** _i_ ~~s~~ `c` $x$":    `\*\*b\*\* \_i\_ \~\~s\~\~ \` + "`c\\` \\$x\\$",
		"safe\u202eevil":             "safe‹U+202E›evil",
		"a\nb\r\nc":                  "a b  c",
		"v1.2-rc (final) + 3 = 4.0!": `v1.2-rc (final) + 3 = 4.0\!`,
		"base 3f2a9c1 (main)":        "base `3f2a9c1` (main)",
		"-deadbeef42 x1234567 cafe":  "\\-`deadbeef42` x1234567 cafe",
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mdText(strings.Repeat("x", 2*maxShownRunes)); utf8.RuneCountInString(got) != maxShownRunes+1 || !strings.HasSuffix(got, "…") {
		t.Errorf("a long string is not clipped to %d runes and an ellipsis: %d runes", maxShownRunes, utf8.RuneCountInString(got))
	}
}

// A commit SHA in the comment is shown whole in a code span, so that a
// hash copied from the rendered comment works in git show, and GitHub
// links none of it.
func TestCommitHashesCopy(t *testing.T) {
	t.Parallel()
	const sha = "9fceb02d0ae598e95dc970b74767f19372d61af8"
	md := mdText("base " + sha + " and head 3f2a9c1 of GH-12")
	if strings.Contains(md, zwsp+"9") || strings.Count(md, "`") != 4 {
		t.Errorf("mdText = %q: the hashes are broken or not in code spans", md)
	}
	prose, code := inerttest.ShownText(md)
	if !strings.Contains(code, sha) || !strings.Contains(code, "3f2a9c1") {
		t.Errorf("the shown code %q does not hold the hashes whole", code)
	}
	if strings.Contains(prose, "9fceb02") || strings.Contains(prose, "GH-1") {
		t.Errorf("the prose %q holds a hash or a live GH- reference", prose)
	}
	if p := inerttest.MarkdownProblems(md); len(p) > 0 {
		t.Errorf("problems: %v", p)
	}
}

func TestMermaidTextExamples(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"latency p95 (ms)":                       "latency p95 (ms)",
		`x"] A-->B %%{init: {'theme':'dark'}}%%`: "x A-- B init theme dark",
		"a;b#35;c`d<br>e":                        "a b 35 c d br e",
		"iterations/s":                           "iterations/s",
	} {
		if got := mermaidText(in); got != want {
			t.Errorf("mermaidText(%q) = %q, want %q", in, got, want)
		}
	}
}

// withStatement gives each run a statement of text query run perIter
// times per iteration (over 100 iterations where a run has none).
func withStatement(runs []result.Run, query string, perIter float64) {
	for i := range runs {
		r := &runs[i]
		if r.Iterations.Completed == 0 {
			r.Iterations.Completed = 100
		}
		r.Statements = []result.Statement{{Source: "pg", Query: query, Calls: perIter * float64(r.Iterations.Completed)}}
	}
}
