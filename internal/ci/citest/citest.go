// Package citest reads a job log as the GitHub Actions runner does
// (shared/research/github-contract.md §1.4), for tests that check which
// workflow commands a log holds, erring towards finding more: any command
// name counts, and each line is also read without the characters a
// culture-aware comparison may ignore.
package citest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

type Command struct {
	Line   int    // 1-based, in the runner's line splitting
	Text   string // the whole line
	Name   string // lower-cased; the runner compares names ignoring case
	Props  map[string]string
	Data   string // escaped as written
	Legacy bool   // the ##[name]data form
}

// Commands returns every line of log the runner could take as a workflow
// command.
func Commands(log string) []Command {
	var found []Command
	for i, line := range Lines(log) {
		c, ok := parse(line)
		if !ok {
			c, ok = parse(withoutIgnorable(line))
		}
		if ok {
			c.Line, c.Text = i+1, line
			found = append(found, c)
		}
	}
	return found
}

// Lines splits log where the runner's line reader does: at "\r\n", "\r"
// and "\n".
func Lines(log string) []string {
	var lines []string
	for log != "" {
		i := strings.IndexAny(log, "\r\n")
		if i < 0 {
			lines = append(lines, log)
			break
		}
		lines = append(lines, log[:i])
		if strings.HasPrefix(log[i:], "\r\n") {
			i++
		}
		log = log[i+1:]
	}
	return lines
}

// parse tries the current form, "::name key=value,key=value::data" after
// leading white space, then the legacy one, "##[name key=value;key=value]data"
// anywhere in the line, as the runner does.
func parse(line string) (Command, bool) {
	if s := strings.TrimLeftFunc(line, isSpace); strings.HasPrefix(s, "::") {
		if c, ok := parseForm(s[2:], "::", ","); ok {
			return c, true
		}
	}
	if i := strings.Index(line, "##["); i >= 0 {
		if c, ok := parseForm(line[i+3:], "]", ";"); ok {
			c.Legacy = true
			return c, true
		}
	}
	return Command{}, false
}

// parseForm reads "name props<end>data" with props separated by sep.
func parseForm(rest, end, sep string) (Command, bool) {
	j := strings.Index(rest, end)
	if j < 0 {
		return Command{}, false
	}
	name, props := nameAndProps(rest[:j], sep)
	return Command{Name: name, Props: props, Data: rest[j+len(end):]}, name != ""
}

func nameAndProps(info, sep string) (string, map[string]string) {
	name, rest, _ := strings.Cut(info, " ")
	props := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSpace(rest), sep) {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" && v != "" {
			props[strings.ToLower(k)] = v
		}
	}
	return strings.ToLower(name), props
}

// isSpace is what .NET's string.TrimStart removes (char.IsWhiteSpace),
// widened by the information separators U+001C–U+001F.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1C && r <= 0x1F)
}

// withoutIgnorable drops control and format characters, marks, private
// and unassigned code points and invalid bytes: what a culture-aware
// string comparison (the runner's IndexOf and StartsWith) may skip.
func withoutIgnorable(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.M, unicode.Zl, unicode.Zp) || !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

type Hostile struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HostileStrings reads testdata/hostile/strings.json at the module's root
// (the directory holding go.mod, above the test's working directory).
func HostileStrings(tb testing.TB) []Hostile {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("citest: no go.mod above the working directory")
		}
		dir = parent
	}
	data, err := os.ReadFile(filepath.Join(dir, "testdata", "hostile", "strings.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var corpus []Hostile
	if err := json.Unmarshal(data, &corpus); err != nil || len(corpus) == 0 {
		tb.Fatalf("testdata/hostile/strings.json: %d entries, %v", len(corpus), err)
	}
	return corpus
}
