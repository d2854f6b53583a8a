package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tailgate-ci/tailgate/internal/bounded"
)

// LoadFile reads, parses and validates the benchmark file at path: an
// unreadable file is a wrapped error, one with problems an *Error of them all.
func LoadFile(path string) (*Config, error) {
	data, err := bounded.ReadFile(path, "benchmark file", MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return Parse(path, data)
}

// Parse parses and validates a benchmark file (path: in messages, default name).
func Parse(path string, data []byte) (*Config, error) { return parse(newCollector(path), path, data) }

// ReadFunc reads a file of at most max bytes (more is an error).
type ReadFunc func(path string, max int64) ([]byte, error)

// ParseAt is Parse for a benchmark file not on disk: name says where it
// comes from in messages ("tailgate.yml at the PR's base commit …"), path
// where it lies in its tree, from which read reads the files it names (a
// commit's file names the commit's files, never the working tree's).
func ParseAt(name, path string, data []byte, read ReadFunc) (*Config, error) {
	c := newCollector(name)
	c.dir, c.read = filepath.Dir(path), read
	return parse(c, path, data)
}

func parse(c *collector, path string, data []byte) (*Config, error) {
	cfg := &Config{Path: path}
	if len(data) > MaxFileSize { // a file read from a commit, whose reader did not bound it
		c.note(position{1, 1}, "the file is %s, larger than the %s tailgate reads of a benchmark file", bounded.Size(int64(len(data))), bounded.Size(MaxFileSize))
		return nil, c.err()
	}
	if root := readDocument(c, data); root != nil {
		c.spots[""] = spot{key: posOf(root), val: posOf(root)}
		d := &decoder{c: c}
		d.decode(root, reflect.ValueOf(cfg).Elem(), "", 0)
		if !d.exhausted() {
			applyDefaults(cfg, c)
			validate(cfg, c)
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// yamlLine finds the line number in a yaml.v3 syntax error.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// readDocument is data's one YAML document's top node, or nil (said why).
func readDocument(c *collector, data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) { // EOF: empty, said below
		at := syntaxPosition(err, data)
		c.note(at, "invalid YAML: %s%s", syntaxMessage(err), templateHint(data, at.line))
		return nil
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		c.note(posOf(&extra), "a second YAML document starts here: the file must hold exactly one")
	case !errors.Is(err, io.EOF):
		c.note(syntaxPosition(err, data), "invalid YAML: %s", syntaxMessage(err))
	}
	if len(doc.Content) == 0 {
		c.note(position{1, 1}, "the file is empty: expected a mapping with target, load and scenarios")
		return nil
	}
	return doc.Content[0]
}

func syntaxPosition(err error, data []byte) position {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return position{}
	}
	line, _ := strconv.Atoi(m[1])
	if msg := syntaxMessage(err); slices.ContainsFunc(parserErrors, func(p string) bool { return strings.HasPrefix(msg, p) }) {
		// yaml.v3 adds 1 to the 0-based line of a scanner error but not
		// of a parser error's; the construct the parser names may start
		// past the file's last line (an unclosed one at the end).
		line = min(line+1, lineCount(data))
	}
	return position{line: line}
}

// parserErrors begin the messages of yaml.v3's parser (as opposed to its
// scanner's), whose line it reports counted from 0.
var parserErrors = []string{
	"did not find expected <document start>", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found duplicate %TAG directive", "found undefined tag handle",
}

// lineCount counts the lines of data, a last one without a newline too.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return max(n, 1)
}

// templateHint explains the commonest syntax error: a {{…}} template left
// unquoted (a flow mapping to YAML), on the line named or beside it.
func templateHint(data []byte, line int) string {
	lines := bytes.Split(data, []byte("\n"))
	for i := max(line, 2) - 2; i <= line && i < len(lines); i++ {
		if m := unquotedTemplate.Find(lines[i]); m != nil {
			return fmt.Sprintf(`; if %s (line %d) is a template, quote it: "…%s…" (YAML reads unquoted braces as a mapping)`, m, i+1, m)
		}
	}
	return ""
}

// unquotedTemplate is a {{…}} template, as YAML would misread it.
var unquotedTemplate = regexp.MustCompile(`\{\{[^{}"']*\}\}`)

func syntaxMessage(err error) string {
	return strings.TrimPrefix(yamlLine.ReplaceAllString(err.Error(), ""), "yaml: ")
}
