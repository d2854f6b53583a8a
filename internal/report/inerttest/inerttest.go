// Package inerttest checks rendered reports for live markup, for the tests of every renderer
// (report, publish, cli): Markdown is parsed as GitHub parses a comment — GitHub Flavored Markdown
// with tables, strikethrough, autolinks and task lists, by goldmark — and its syntax tree walked;
// HTML is tokenized by golang.org/x/net/html. It is imported by tests only.
package inerttest

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/tailgate-ci/tailgate/internal/ci/citest"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"
)

type Hostile = citest.Hostile

// Corpus is the hostile-input corpus (citest.HostileStrings); one too small to exercise a renderer fails the test.
func Corpus(tb testing.TB) []Hostile {
	tb.Helper()
	out := citest.HostileStrings(tb)
	if len(out) < 20 {
		tb.Fatalf("the hostile corpus holds %d strings", len(out))
	}
	return out
}

// gfm parses as GitHub does: tables, ~~strikethrough~~, bare URLs, www. and e-mail autolinks, task lists.
var gfm = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify, extension.TaskList))

func walk(md string, visit func(n ast.Node) ast.WalkStatus) {
	tree := gfm.Parser().Parse(text.NewReader([]byte(md)), parser.WithContext(parser.NewContext()))
	ast.Walk(tree, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		return visit(n), nil
	})
}

func segments(segs *text.Segments, src []byte) string {
	var b strings.Builder
	for i := range segs.Len() {
		seg := segs.At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

// The only raw HTML a report writes: the sticky marker, collapsed sections with a plain summary, and <sub> captions.
var (
	ownHTMLBlock = regexp.MustCompile(`^(<!-- tailgate:[A-Za-z0-9._/-]* -->|<details><summary>[A-Za-z0-9 ()/-]*</summary>|</details>)$`)
	ownRawHTML   = []string{"<sub>", "</sub>"}
)

// MarkdownProblems lists the live markup in md: any link, image or autolink except links to
// ownLinks; raw HTML beyond the report's own; and, in the text GitHub shows, an @mention, a
// #reference, a GH-N reference, a commit SHA, a bare URL or www. address, an e-mail address, or a
// bidirectional or zero-width character other than the U+200B the renderer puts in to defuse those.
func MarkdownProblems(md string, ownLinks ...string) []string {
	src := []byte(md)
	var out []string
	walk(md, func(n ast.Node) ast.WalkStatus {
		switch n := n.(type) {
		case *ast.Link:
			if !slices.Contains(ownLinks, string(n.Destination)) {
				out = append(out, fmt.Sprintf("link to %q", n.Destination))
			}
		case *ast.Image:
			out = append(out, fmt.Sprintf("image %q", n.Destination))
		case *ast.AutoLink:
			out = append(out, fmt.Sprintf("autolink %q", n.URL(src)))
		case *ast.RawHTML:
			if raw := segments(n.Segments, src); !slices.Contains(ownRawHTML, raw) {
				out = append(out, fmt.Sprintf("raw HTML %q", raw))
			}
		case *ast.HTMLBlock:
			for i := range n.Lines().Len() {
				seg := n.Lines().At(i)
				if line := strings.TrimRight(string(seg.Value(src)), "\n"); !ownHTMLBlock.MatchString(line) {
					out = append(out, fmt.Sprintf("HTML block line %q", line))
				}
			}
		}
		return ast.WalkContinue
	})
	prose, code := ShownText(md)
	return append(out, textProblems(prose, code)...)
}

// ShownText is the text a reader sees of md: the prose, and the text of
// code spans and blocks (where GitHub links nothing).
func ShownText(md string) (prose, code string) {
	var rendered bytes.Buffer
	if err := gfm.Convert([]byte(md), &rendered); err != nil {
		return "render error: " + err.Error(), ""
	}
	var p, c strings.Builder
	inCode := 0
	z := html.NewTokenizer(&rendered)
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return p.String(), c.String()
		case html.TextToken:
			if inCode > 0 {
				c.Write(z.Text())
			} else {
				p.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "code" {
				inCode = max(0, inCode+map[bool]int{true: 1, false: -1}[tt == html.StartTagToken])
			}
			p.WriteByte(' ')
		}
	}
}

var (
	mention   = regexp.MustCompile(`(^|[^A-Za-z0-9_])@[A-Za-z0-9]`)
	reference = regexp.MustCompile(`#[0-9A-Za-z]`)
	bareURL   = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://|www\.|[A-Za-z0-9._%+-]@[A-Za-z0-9-]`)
	ghRef     = regexp.MustCompile(`(?i)\bGH-[0-9]`)
	// commitSHA is a word of 7 to 40 hex digits with a letter among them (tailgate's own figures are digits).
	commitSHA = regexp.MustCompile(`\b[0-9]*[a-fA-F][0-9a-fA-F]*\b`)
)

func textProblems(prose, code string) []string {
	var out []string
	for i, re := range []*regexp.Regexp{mention, reference, bareURL, ghRef} {
		for _, m := range re.FindAllString(prose, 3) {
			out = append(out, fmt.Sprintf("%s %q in the shown text", [...]string{"mention", "reference", "bare URL or e-mail", "GH- reference"}[i], m))
		}
	}
	for _, m := range commitSHA.FindAllString(prose, -1) {
		if len(m) >= 7 && len(m) <= 40 && strings.ContainsAny(m, "0123456789") { // GitHub would link it
			out = append(out, fmt.Sprintf("commit SHA %q in the shown text", m))
		}
	}
	for _, r := range prose + code {
		if r != '\u200b' && (unicode.Is(unicode.Cf, r) || (unicode.IsControl(r) && r != '\n' && r != '\t')) {
			out = append(out, fmt.Sprintf("invisible or control character %U in the shown text", r))
			break
		}
	}
	return out
}

// Structure is the shape of md's syntax tree: the kind of every node but text, with what sets its look (heading level,
// emphasis level, a table row's cell count, a code block's language). Two renderings whose inputs differ only in
// untrusted text must have the same structure: any difference is markup that came from the input.
func Structure(md string) string {
	src := []byte(md)
	var b strings.Builder
	walk(md, func(n ast.Node) ast.WalkStatus {
		switch n := n.(type) {
		case *ast.Text, *ast.String:
			return ast.WalkContinue
		case *ast.CodeSpan:
			if commitSpan(n, src) {
				return ast.WalkSkipChildren // the renderer's own span around a commit SHA in the text
			}
			b.WriteString(n.Kind().String() + " ")
		case *ast.Heading:
			fmt.Fprintf(&b, "Heading%d ", n.Level)
		case *ast.Emphasis:
			fmt.Fprintf(&b, "Emphasis%d ", n.Level)
		case *ast.FencedCodeBlock:
			fmt.Fprintf(&b, "Fenced(%s) ", n.Language(src))
		case *east.TableRow, *east.TableHeader:
			fmt.Fprintf(&b, "%s(%d) ", n.Kind(), n.ChildCount())
		default:
			b.WriteString(n.Kind().String() + " ")
		}
		return ast.WalkContinue
	})
	return b.String()
}

// commitSpan reports whether a code span holds one commit SHA alone, as mdText shows one.
func commitSpan(n *ast.CodeSpan, src []byte) bool {
	t, ok := n.FirstChild().(*ast.Text)
	if !ok || t.NextSibling() != nil {
		return false
	}
	sha := string(t.Segment.Value(src))
	return len(sha) >= 7 && strings.Trim(sha, "0123456789abcdefABCDEF") == "" && strings.ContainsAny(sha, "0123456789") && strings.ContainsAny(sha, "abcdefABCDEF")
}

// FencedBlocks returns the content of every fenced code block of language lang, as goldmark reads it.
func FencedBlocks(md, lang string) []string {
	src := []byte(md)
	var out []string
	walk(md, func(n ast.Node) ast.WalkStatus {
		if f, ok := n.(*ast.FencedCodeBlock); ok && string(f.Language(src)) == lang {
			out = append(out, segments(f.Lines(), src))
		}
		return ast.WalkContinue
	})
	return out
}

// The elements and attributes the HTML report may hold: its own layout, and inline SVG figures of paths and text.
var (
	htmlTags = []string{"html", "head", "meta", "title", "style", "body", "main", "header", "section", "h1", "h2", "p",
		"span", "div", "table", "thead", "tbody", "tr", "th", "td", "figure", "figcaption", "details", "summary", "ul",
		"li", "code", "svg", "g", "path", "text"}
	htmlAttrs = []string{"lang", "charset", "name", "content", "http-equiv", "class", "role", "aria-label", "viewbox",
		"xmlns", "xmlns:xlink", "transform", "x", "y", "d", "style"}
	cssURL = regexp.MustCompile(`(?i)url\(\s*['"]?([^'")]*)`)
)

// HTMLReport is what HTMLProblems found in a page: its problems and how many SVG figures it holds.
type HTMLReport struct {
	Problems []string
	SVGs     int
}

// HTMLProblems tokenizes page and lists every element or attribute outside the report's own (no script, no link, no
// img, no event handler, no href or src), every url() that is not a data: URL (nothing is fetched), and every meta tag
// other than charset, viewport, colour scheme and the content security policy that forbids fetching anything.
func HTMLProblems(page string) HTMLReport {
	var rep HTMLReport
	z := html.NewTokenizer(strings.NewReader(page))
	inStyle := false
	urls := func(css, where string) {
		for _, m := range cssURL.FindAllStringSubmatch(css, -1) {
			if !strings.HasPrefix(m[1], "data:") {
				rep.Problems = append(rep.Problems, fmt.Sprintf("url(%s) %s", m[1], where))
			}
		}
	}
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				rep.Problems = append(rep.Problems, "tokenizer: "+z.Err().Error())
			}
			return rep
		case html.TextToken:
			if inStyle {
				urls(string(z.Text()), "in CSS fetches")
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if tt == html.EndTagToken {
				inStyle = inStyle && tag != "style"
				continue
			}
			inStyle = tag == "style"
			if tag == "svg" {
				rep.SVGs++
			}
			if !slices.Contains(htmlTags, tag) {
				rep.Problems = append(rep.Problems, fmt.Sprintf("element <%s>", tag))
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				key := string(k)
				if !slices.Contains(htmlAttrs, key) {
					rep.Problems = append(rep.Problems, fmt.Sprintf("attribute %s=%q on <%s>", key, v, tag))
				}
				urls(string(v), fmt.Sprintf("in %s on <%s>", key, tag))
				if tag == "meta" && key == "http-equiv" && !strings.EqualFold(string(v), "Content-Security-Policy") {
					rep.Problems = append(rep.Problems, fmt.Sprintf("meta http-equiv=%q", v))
				}
			}
		}
	}
}
