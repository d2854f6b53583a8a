package report

import (
	"strings"
	"unicode/utf8"
)

// CommentLimit is GitHub's limit on the body of an issue comment.
const CommentLimit = 65536

// Notices Truncate adds when it cuts.
const (
	detailsCutNotice = "\n_Per-step figures and error classes were cut to fit the comment limit; see the job summary or report.json._\n"
	hardCutNotice    = "\n\n_… report cut to fit the comment limit; see the job summary or report.json._\n"
)

// Truncate shortens a Markdown report to at most limit bytes (bytes never
// undercount GitHub's character limit). It first drops the collapsed
// details section and says so; only if that is not enough does it cut the
// end of the report, on a line boundary where possible, again saying so.
// The marker on the first line is kept.
func Truncate(md string, limit int) string {
	if len(md) <= limit {
		return md
	}
	if i := strings.Index(md, detailsOpen); i >= 0 {
		rest := md[i:]
		end := len(md)
		if j := strings.Index(rest, detailsClose); j >= 0 {
			end = i + j + len(detailsClose)
		}
		md = md[:i] + strings.TrimPrefix(detailsCutNotice, "\n") + strings.TrimPrefix(md[end:], "\n")
		if len(md) <= limit {
			return md
		}
	}
	keep := limit - len(hardCutNotice)
	if keep <= 0 {
		return cutRunes(md, limit)
	}
	cut := cutRunes(md, keep)
	if nl := strings.LastIndexByte(cut, '\n'); nl > keep/2 {
		cut = cut[:nl]
	}
	return cut + hardCutNotice
}

// cutRunes returns the longest prefix of s of at most n bytes that ends on
// a rune boundary.
func cutRunes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:max(n, 0)]
}
