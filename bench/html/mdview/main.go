// Command mdview renders a Markdown report (a PR comment or a job summary)
// to an HTML page the way a GitHub comment looks, as a stand-in for
// GitHub's renderer when screenshotting: GitHub Flavored Markdown by
// goldmark (tables, strikethrough, autolinks, task lists), raw HTML kept
// (GitHub keeps <details>, <summary> and <sub>), and ```mermaid blocks
// handed to Mermaid when -mermaid names a local mermaid.min.js (GitHub
// renders them with Mermaid too); without it they stay code blocks.
//
//	mdview [-mermaid path/to/mermaid.min.js] [-dark] report.md > report.html
package main

import (
	"bytes"
	"flag"
	"fmt"
	"html"
	"os"
	"regexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	ghtml "github.com/yuin/goldmark/renderer/html"
)

func main() {
	mermaid := flag.String("mermaid", "", "a local mermaid.min.js to render ```mermaid blocks with")
	dark := flag.Bool("dark", false, "GitHub's dark colours")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: mdview [-mermaid mermaid.min.js] [-dark] report.md")
		os.Exit(2)
	}
	src, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify, extension.TaskList),
		goldmark.WithRendererOptions(ghtml.WithUnsafe()))
	var body bytes.Buffer
	if err := md.Convert(src, &body); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := body.String()
	script := ""
	if *mermaid != "" {
		// Mermaid reads the text of <pre class="mermaid">, which goldmark
		// wrote HTML-escaped; unescaping here gives Mermaid the source.
		out = mermaidBlock.ReplaceAllStringFunc(out, func(m string) string {
			code := mermaidBlock.FindStringSubmatch(m)[1]
			return `<pre class="mermaid">` + html.EscapeString(html.UnescapeString(code)) + `</pre>`
		})
		theme := "default"
		if *dark {
			theme = "dark"
		}
		script = fmt.Sprintf(`<script src="file://%s"></script><script>mermaid.initialize({startOnLoad: true, theme: %q});</script>`, *mermaid, theme)
	}
	bg, fg, rule, code := "#ffffff", "#1f2328", "#d1d9e0", "#f6f8fa"
	if *dark {
		bg, fg, rule, code = "#0d1117", "#e6edf3", "#3d444d", "#151b23"
	}
	fmt.Printf(page, bg, fg, rule, rule, code, out, script)
}

var mermaidBlock = regexp.MustCompile(`(?s)<pre><code class="language-mermaid">(.*?)</code></pre>`)

const page = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { margin: 0; background: %s; color: %s; font: 14px/1.5 -apple-system, "Segoe UI", "Liberation Sans", Helvetica, Arial, sans-serif; }
.comment { max-width: 880px; margin: 16px auto; padding: 16px; border: 1px solid %s; border-radius: 6px; }
table { border-collapse: collapse; display: block; overflow: auto; }
th, td { padding: 6px 13px; border: 1px solid %s; }
pre, code { background: %s; border-radius: 6px; }
pre { padding: 12px; overflow: auto; }
h3 { margin-top: 0; }
</style></head><body><div class="comment">
%s
</div>%s</body></html>
`
