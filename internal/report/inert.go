package report

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The one rule for text tailgate did not write — report artifacts, config,
// scenario and step names, error samples, server responses, branch names,
// and the notes and warnings built from them: every renderer shows it only
// through these functions, so that it is read as text and never acts.
//
//   - visible: on every surface. Line breaks and the other separators fold
//     to a space (a name never starts a line of its own); control and
//     format characters — bidirectional overrides and isolates, zero-width
//     characters, byte-order marks, tag characters — are shown as ‹U+XXXX›
//     instead of reordering or hiding text; invalid UTF-8 becomes U+FFFD;
//     long text is clipped.
//   - mdText: Markdown (PR comment, job summary). See mdText.
//   - mermaidText: labels inside a Mermaid chart. See mermaidText.
//   - HTML: html/template escapes text and attributes by context; the
//     page model (html.go) holds untrusted strings only after visible.

// maxShownRunes clips one untrusted string: enough for an error sample,
// too few for a hostile artifact to fill a comment with one field.
const maxShownRunes = 300

func visible(s string, maxRunes int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxRunes {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case strings.ContainsRune("\t\n\v\f\r\u0085\u2028\u2029", r): // breaks or separates lines anywhere: in Markdown, a terminal, the runner's log
			b.WriteByte(' ')
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, "‹U+%04X›", r)
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// mdEscaped are the ASCII punctuation characters that mean something in GitHub Flavored Markdown inside a line:
// emphasis, code, strikethrough, links, images and footnotes, table cells, math ($), and # (headings, and references
// once rendered). A backslash makes any of them literal (CommonMark §2.4). `< > &` become entities instead, so that the
// Markdown never holds the bytes "<details", "<!--" or "```" taken from input (ci/mdtrunc counts those). The other
// punctuation means something only at the start of a line (list markers, thematic breaks): mdText's output is one line,
// so only its first character can be there (leadingMarker).
const mdEscaped = "\\`*_~[]!|$#"

// leadingMarker is the length of a block marker starting s ("-", "+", "=", or digits and "." or ")"); 0 without one.
func leadingMarker(s string) int {
	if s != "" && strings.ContainsRune("-+=", rune(s[0])) {
		return 1
	}
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	if digits > 0 && digits < len(s) && (s[digits] == '.' || s[digits] == ')') {
		return digits + 1
	}
	return 0
}

// zwsp (U+200B ZERO WIDTH SPACE) is inserted by mdText to break patterns that GitHub links in rendered text whatever
// the Markdown escapes say: @mentions, #references, GH-N references, and the bare URLs and e-mail addresses of GFM's
// autolink extension. It is tailgate's own character: input zero-width characters are made visible by visible before it
// is inserted. Commit SHAs are not broken with it (a hash copied from the comment would not work in git show): they are
// put in code spans, where GitHub links nothing.
const zwsp = "\u200b"

// mdText renders untrusted text as inert inline Markdown: visible; every Markdown punctuation character literal; no
// block marker at its start; no HTML, entity, autolink, bare URL (`://`, `www.`), e-mail address, @mention, #reference
// or GH-N reference; a commit SHA in a code span, which GitHub does not link and which copies as it is. The result is
// one line and fits a table cell.
func mdText(s string) string {
	s = ghReference.ReplaceAllStringFunc(visible(s, maxShownRunes), func(m string) string { return m[:2] + zwsp + m[2:] })
	var b strings.Builder
	if n := leadingMarker(s); n > 0 {
		b.WriteString(s[:n-1] + `\` + s[n-1:n])
		s = s[n:]
	}
	last := 0
	for _, m := range hexRun.FindAllStringIndex(s, -1) {
		if run := s[m[0]:m[1]]; shaLike(run) {
			escapeInline(&b, s[last:m[0]])
			b.WriteString("`" + run + "`") // only hex digits: nothing in it ends the span
			last = m[1]
		}
	}
	escapeInline(&b, s[last:])
	return b.String()
}

var mdEntities = map[rune]string{'<': "&lt;", '>': "&gt;", '&': "&amp;"}

// escapeInline writes s with every Markdown punctuation character literal,
// no HTML or entity, and a zwsp after each @, # and :// and inside www.
func escapeInline(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		if len(s)-i >= 4 && strings.EqualFold(s[i:i+4], "www.") {
			b.WriteString(s[i:i+3] + zwsp + ".")
			i += 4
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch entity, ok := mdEntities[r]; {
		case ok:
			b.WriteString(entity)
		case r < utf8.RuneSelf && strings.ContainsRune(mdEscaped, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		if r == '@' || r == '#' || (r == ':' && strings.HasPrefix(s[i:], "//")) {
			b.WriteString(zwsp)
		}
	}
}

// ghReference and hexRun are what GitHub links in rendered text besides
// #N: GH-N issue references, and commit SHAs (7 to 40 hex digits).
var (
	ghReference = regexp.MustCompile(`(?i)\bgh-[0-9]`)
	hexRun      = regexp.MustCompile(`[0-9A-Fa-f]{7,}`)
)

// shaLike reports whether a run of hex digits could be a commit SHA: it
// holds a letter and a digit (digits alone are a count, letters a word).
func shaLike(run string) bool {
	return strings.ContainsAny(run, "0123456789") && strings.ContainsAny(run, "abcdefABCDEF")
}

const maxMermaidRunes = 40

// mermaidText renders untrusted text as a label inside a double-quoted Mermaid string: only letters, digits, spaces and
// `. / + - _ ( ) ,` are kept, every other character becomes a space. That leaves nothing that Mermaid's grammar or its
// preprocessor would read: no quote that ends the string, no `%%` directive or comment, no `#…;` entity, no HTML, no
// backtick (Markdown strings, or the end of the code fence), no bracket or line break.
func mermaidText(s string) string {
	s = visible(s, maxMermaidRunes)
	mapped := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" ./+-_(),", r) {
			return r
		}
		return ' '
	}, s)
	return strings.Join(strings.Fields(mapped), " ")
}
