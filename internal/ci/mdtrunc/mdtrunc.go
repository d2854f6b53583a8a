// Package mdtrunc cuts Markdown to fit GitHub's size limits (1 MiB job
// summaries, 65,536-character PR comments) without leaving a code fence or a
// <details> block open, and says that it did. It is shared by internal/ci
// (summaries) and internal/gh (comments) and depends on nothing.
package mdtrunc

import (
	"strings"
	"unicode/utf8"
)

// Fit returns md unchanged when it is at most limit bytes. Otherwise it cuts
// md at the last line break that leaves room, closes any open code fence and
// <details> block, appends note on a line of its own, and reports true;
// where even note and the closers do not fit, only note, cut to limit.
func Fit(md string, limit int, note string) (string, bool) {
	if len(md) <= limit {
		return md, false
	}
	// Reserve room for the note and for every closer that might be needed.
	room := limit - len(note) - len("\n\n") - len("\n```") -
		strings.Count(md, "<details")*len("\n</details>")
	if room <= 0 {
		return cutRunes(note, limit), true
	}
	head := cutRunes(md, room)
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i]
	}
	if strings.Count(head, "```")%2 == 1 {
		head += "\n```"
	}
	return head + strings.Repeat("\n</details>", openDetails(head)) + "\n\n" + note, true
}

// openDetails counts <details> blocks opened in md and not closed.
func openDetails(md string) int {
	return max(0, strings.Count(md, "<details")-strings.Count(md, "</details>"))
}

// cutRunes returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
