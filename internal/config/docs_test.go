package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"gopkg.in/yaml.v3"
)

// The docs are executable: every ```yaml block in README.md and docs/*.md
// is checked here, so a doc change that breaks an example fails CI.
//
// The convention, by the nearest non-blank line before the fence:
//
//   - no marker: the block is a whole benchmark file and must pass Parse
//     (what `tailgate validate` checks, without starting anything);
//   - <!-- fragment -->: part of a benchmark file; it is merged onto
//     fragmentBase (mappings key by key, anything else replacing the base's
//     value; a fragment's load replaces the base's whole, since the model
//     keys exclude each other) and the result must pass Parse;
//   - <!-- workflow -->: a GitHub Actions workflow or a list of its steps;
//     it must parse as YAML, and every step that uses tailgate-ci/tailgate
//     may give only inputs action.yml declares;
//   - <!-- yaml -->: other YAML (a Kubernetes manifest); it must parse.
//
// A file a benchmark names is served as a stand-in: a CA for a .pem, else a
// feed whose columns are the {{feed "…"}} names the block uses. ```yml fences are
// refused, so no example escapes the check.

const fragmentBase = `
target: {url: "http://127.0.0.1:8080"}
load: {model: closed, vus: 2}
scenarios: [{name: browse, steps: [{path: /}]}]
`

var (
	docMarker  = regexp.MustCompile(`^<!-- (fragment|workflow|yaml) -->$`)
	feedColumn = regexp.MustCompile(`feed\s+"([^"]+)"`)
)

type docBlock struct {
	file, kind, text string
	line             int // of the fence
}

func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

func yamlBlocks(t *testing.T, files []string) []docBlock {
	t.Helper()
	var out []docBlock
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		prev := ""
		for i := 0; i < len(lines); i++ {
			l := strings.TrimSpace(lines[i])
			if escapes(l) {
				t.Errorf("%s:%d: the fence %q escapes the docs check: write ```yaml", f, i+1, l)
			}
			if strings.HasPrefix(l, "```") && l != "```yaml" {
				for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
				}
				prev = ""
				continue
			}
			if l != "```yaml" {
				if l != "" {
					prev = l
				}
				continue
			}
			b := docBlock{file: f, line: i + 1, kind: "benchmark"}
			if m := docMarker.FindStringSubmatch(prev); m != nil {
				b.kind = m[1]
			}
			var body []string
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
				body = append(body, lines[i])
			}
			b.text = strings.Join(body, "\n") + "\n"
			out = append(out, b)
			prev = ""
		}
	}
	return out
}

// escapes says whether a fence opens a block the check would skip though
// it may hold YAML: an info string naming yaml or yml other than exactly
// yaml (```yml, ```YAML, ```yaml title=x), or a ~~~ fence, which
// yamlBlocks does not read.
func escapes(l string) bool {
	info := strings.ToLower(strings.TrimLeft(l, "`"))
	return strings.HasPrefix(l, "~~~") || strings.HasPrefix(l, "```") && l != "```yaml" && (strings.HasPrefix(info, "yaml") || strings.HasPrefix(info, "yml"))
}

func TestDocsFencesThatWouldEscapeTheCheck(t *testing.T) {
	t.Parallel()
	for l, want := range map[string]bool{"```yml": true, "```YAML": true, "```yaml title=tailgate.yml": true, "```Yml": true, "~~~yaml": true, "~~~": true,
		"```yaml": false, "```": false, "```json": false, "```sh": false, "```text": false} {
		if escapes(l) != want {
			t.Errorf("escapes(%q) = %v, want %v", l, !want, want)
		}
	}
}

// The bench files are benchmark files users wrote from the docs;
// bench/radicale/ab.yml (issue 46), a service the project never saw, uses
// what the docs describe for a WebDAV service: its methods, raw body
// templates, save from a header and by regex, a merge key inside a flow
// mapping, and a reset command per side. They
// parse as written, and the Radicale file's features mean what it meant.
func TestBenchFilesParse(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../bench/*/*.yml")
	if len(files) < 10 {
		t.Fatalf("found %d bench files, want at least 10", len(files))
	}
	for _, f := range files {
		if _, err := LoadFile(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	cfg, err := LoadFile("../../bench/radicale/ab.yml")
	if err != nil {
		t.Fatal(err)
	}
	steps := cfg.Scenarios[0].Steps
	var methods []string
	for _, s := range steps {
		methods = append(methods, s.Method)
	}
	if got := strings.Join(methods, " "); got != "PROPFIND PUT REPORT REPORT DELETE" {
		t.Errorf("methods %s", got)
	}
	if h := steps[0].Headers; h["Authorization"] != "Basic dGc6dGc=" || h["Depth"] != "0" || !strings.HasPrefix(h["Content-Type"], "application/xml") {
		t.Errorf("<<: *dav inside a flow mapping gave headers %v", h)
	}
	if s := steps[1]; !strings.Contains(s.Body, "UID:tg-{{seq}}@bench\n") || s.Save["etag"] != (SaveFrom{From: SaveHeader, Name: "ETag"}) {
		t.Errorf("create: body %q, save %+v", s.Body, s.Save)
	}
	if s := steps[0].Save["token"]; s.From != SaveBody || s.Regex != "<sync-token>([^<]+)</sync-token>" {
		t.Errorf("token saved from %+v", s)
	}
	if r := cfg.Dataset.Reset; r == nil || r.Command == nil || cfg.AB.Head.Start == nil || cfg.AB.Base.Start == nil {
		t.Errorf("reset %+v, sides' starts %v %v", r, cfg.AB.Base.Start, cfg.AB.Head.Start)
	}
	// bench/verdaccio/ab.yml, an npm registry: a JSON path with escaped dots
	// read by a regex, and logins from a feed in setup.vu
	npm, err := LoadFile("../../bench/verdaccio/ab.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := SaveFrom{Name: `versions.1\.0\.0.dist.tarball`, Regex: `^https?://[^/]+/(.+)$`}
	if got := npm.Scenarios[0].Steps[1].Save["tarball"]; got.Name != want.Name || got.Regex != want.Regex || got.From != "" && got.From != SaveJSON {
		t.Errorf("tarball saved from %+v", got)
	}
	if vu := npm.Setup.VU; len(vu) != 1 || vu[0].Headers["Authorization"] != `Basic {{feed "basic"}}` || npm.Feed == nil {
		t.Errorf("setup.vu %+v, feed %v", vu, npm.Feed)
	}
}

func TestDocsYAMLExamples(t *testing.T) {
	t.Parallel()
	inputs, pem := actionInputs(t), []byte(testCAPEM(t))
	blocks := yamlBlocks(t, docFiles(t))
	if len(blocks) < 20 {
		t.Fatalf("found %d yaml blocks in the docs, want at least 20", len(blocks))
	}
	for _, b := range blocks {
		if err := checkDocBlock(b, inputs, pem); err != nil {
			t.Errorf("%s:%d (%s block):\n%v", b.file, b.line, b.kind, err)
		}
	}
}

func checkDocBlock(b docBlock, inputs map[string]bool, pem []byte) error {
	switch b.kind {
	case "yaml":
		var v any
		return yaml.Unmarshal([]byte(b.text), &v)
	case "workflow":
		var v any
		if err := yaml.Unmarshal([]byte(b.text), &v); err != nil {
			return err
		}
		return checkActionSteps(v, inputs)
	case "fragment":
		merged, err := mergeOntoBase(b.text)
		if err != nil {
			return err
		}
		return parseDocBenchmark(b, merged, pem)
	}
	return parseDocBenchmark(b, []byte(b.text), pem)
}

func parseDocBenchmark(b docBlock, data, pem []byte) error {
	cols := map[string]bool{}
	for _, m := range feedColumn.FindAllStringSubmatch(string(data), -1) {
		cols[m[1]] = true
	}
	read := func(path string, max int64) ([]byte, error) {
		if strings.HasSuffix(path, ".pem") {
			return pem, nil
		}
		var names []string
		for c := range cols {
			names = append(names, c)
		}
		if len(names) == 0 {
			names = []string{"user"}
		}
		if strings.HasSuffix(path, ".json") {
			row := map[string]string{}
			for _, n := range names {
				row[n] = "x"
			}
			return yaml.Marshal([]any{row}) // JSON is YAML; the feed reader takes either
		}
		return []byte(strings.Join(names, ",") + "\n" + strings.Repeat("x,", len(names)-1) + "x\n"), nil
	}
	_, err := ParseAt(fmt.Sprintf("%s:%d", filepath.Base(b.file), b.line), "/docs/tailgate.yml", data, read)
	return err
}

// mergeOntoBase completes a fragment: its top-level mappings merge into
// fragmentBase's key by key, recursively; any other value replaces the base's.
func mergeOntoBase(fragment string) ([]byte, error) {
	var base, frag map[string]any
	if err := yaml.Unmarshal([]byte(fragmentBase), &base); err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal([]byte(fragment), &frag); err != nil {
		return nil, err
	}
	if frag == nil {
		return nil, fmt.Errorf("a fragment must be a mapping of benchmark keys")
	}
	if load, ok := frag["load"]; ok {
		base["load"] = load
	}
	mergeMaps(base, frag)
	return yaml.Marshal(base)
}

func mergeMaps(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeMaps(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// checkActionSteps finds every step that uses the tailgate action, anywhere
// in a workflow, and checks its with: keys against action.yml's inputs.
func checkActionSteps(v any, inputs map[string]bool) error {
	var errs []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if uses, _ := x["uses"].(string); strings.HasPrefix(uses, "tailgate-ci/tailgate@") {
				with, _ := x["with"].(map[string]any)
				for k := range with {
					if !inputs[k] {
						errs = append(errs, fmt.Sprintf("with: %s is not an input of action.yml", k))
					}
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if errs != nil {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

func actionInputs(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil || len(a.Inputs) == 0 {
		t.Fatalf("action.yml inputs: %v", err)
	}
	in := map[string]bool{}
	for k := range a.Inputs {
		in[k] = true
	}
	return in
}

// TestDocsLinks checks that every relative link of the user docs and the
// bench notes resolves, to a file and, with #anchor, to a heading of it;
// and that every docs/….md#anchor the code prints names a heading.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	files := docFiles(t)
	more, _ := filepath.Glob("../../bench/*/RESULTS.md")
	files = append(append(files, "../../bench/README.md", "../../bench/MEASUREMENTS.md"), more...)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatchIndex(string(outsideCode(data)), -1) {
			target := string(data[m[2]:m[3]])
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			line := 1 + bytes.Count(data[:m[0]], []byte("\n"))
			path, anchor, _ := strings.Cut(target, "#")
			full := f
			if path != "" {
				full = filepath.Join(filepath.Dir(f), path)
			}
			if _, err := os.Stat(full); err != nil {
				t.Errorf("%s:%d: link %s: no such file", f, line, target)
				continue
			}
			if anchor != "" && !headingAnchors(t, anchors, full)[anchor] {
				t.Errorf("%s:%d: link %s: no heading with that anchor", f, line, target)
			}
		}
	}
	code := regexp.MustCompile(`docs/([a-z-]+\.md)#([a-z0-9-]+)`)
	for _, root := range []string{"../../internal", "../../cmd", "../../testdata/config", "../../action.yml"} {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".yml")) || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			data, _ := os.ReadFile(p)
			for _, m := range code.FindAllStringSubmatch(string(data), -1) {
				if !headingAnchors(t, anchors, filepath.Join("../../docs", m[1]))[m[2]] {
					t.Errorf("%s names %s, which is no heading", p, m[0])
				}
			}
			return nil
		})
	}
}

var (
	codeFence  = regexp.MustCompile("(?ms)^```.*?^```")
	codeInline = regexp.MustCompile("(?ms)^```.*?^```|`[^`\n]*`")
)

// outsideCode blanks fenced code blocks and inline code, keeping offsets.
func outsideCode(data []byte) []byte { return blank(data, codeInline) }

func blank(data []byte, fence *regexp.Regexp) []byte {
	out := bytes.Clone(data)
	for _, m := range fence.FindAllIndex(out, -1) {
		for i := m[0]; i < m[1]; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	return out
}

// headingAnchors are the anchors GitHub gives a file's headings.
func headingAnchors(t *testing.T, cache map[string]map[string]bool, path string) map[string]bool {
	if a, ok := cache[path]; ok {
		return a
	}
	a := map[string]bool{}
	cache[path] = a
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v", err)
		return a
	}
	seen := map[string]int{}
	for _, l := range strings.Split(string(blank(data, codeFence)), "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
				b.WriteRune(r)
			}
		}
		id := b.String()
		if n := seen[id]; n > 0 {
			a[fmt.Sprintf("%s-%d", id, n)] = true
		} else {
			a[id] = true
		}
		seen[id]++
	}
	return a
}

// TestDocsBudget holds issue 47's bars: a README read top-down in at most
// 250 lines, and README plus docs/*.md within 30,000 words (as wc -w counts).
func TestDocsBudget(t *testing.T) {
	t.Parallel()
	words := 0
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		words += len(strings.Fields(string(data)))
		if lines := bytes.Count(data, []byte("\n")); f == "../../README.md" && lines > 250 {
			t.Errorf("README.md has %d lines, the budget is 250", lines)
		}
	}
	if words > 30000 {
		t.Errorf("README.md and docs/*.md hold %d words, the budget is 30,000", words)
	}
}
