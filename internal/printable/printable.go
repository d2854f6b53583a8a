// Package printable decides which characters a name may hold (a benchmark,
// scenario, step or metric label, wherever it comes from): one definition
// for config validation and for the reader of untrusted reports. Names are
// shown in logs, PR comments, job summaries and HTML, where a line break
// can start a workflow command and a bidirectional or zero-width character
// makes text read otherwise than it is.
package printable

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Bad returns the first character of s a name may not hold (a control or
// format character, a line or paragraph separator, a byte that is not
// UTF-8) and its position in characters (0-based); ok is false for none.
func Bad(s string) (r rune, pos int, ok bool) {
	for s != "" {
		c, size := utf8.DecodeRuneInString(s)
		if (c == utf8.RuneError && size == 1) || unicode.In(c, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			return c, pos, true
		}
		s = s[size:]
		pos++
	}
	return 0, 0, false
}

// Check returns an error naming the first character of s a name may not
// hold, or nil.
func Check(s string) error {
	r, pos, ok := Bad(s)
	if !ok {
		return nil
	}
	return fmt.Errorf("contains %s at character %d: names are shown in logs and PR comments; use printable characters", Describe(r), pos+1)
}

// Describe names a character for an error message, never printing it.
func Describe(r rune) string {
	switch {
	case r == '\n' || r == '\r' || unicode.In(r, unicode.Zl, unicode.Zp) || r == 0x85:
		return fmt.Sprintf("a line break (U+%04X)", r)
	case r == utf8.RuneError:
		return "bytes that are not UTF-8"
	case unicode.Is(unicode.Cc, r):
		return fmt.Sprintf("the control character U+%04X", r)
	case isBidi(r):
		return fmt.Sprintf("the bidirectional control U+%04X", r)
	default:
		return fmt.Sprintf("the invisible format character U+%04X", r)
	}
}

func isBidi(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// MaxName is the most characters a name may have (a benchmark, scenario,
// step or phase); a step of a phase, "step phase", is within 2·MaxName.
const MaxName = 100

// Long returns an error when s has more than max characters, or nil.
func Long(s string, max int) error {
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Errorf("is %d characters long: names are shown in logs and PR comments; use at most %d", n, max)
	}
	return nil
}

// Clip is s cut to at most max characters, "…" marking the cut: for names
// tailgate cannot refuse (a load tool's result file).
func Clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}
