package printable

import (
	"strings"
	"testing"
)

func TestBadFindsTheFirstCharacterANameMayNotHold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		r    rune
		pos  int
		desc string
	}{
		{"demo\n::error::x", '\n', 4, "a line break (U+000A)"},
		{"a\rb", '\r', 1, "a line break (U+000D)"},
		{"tab\there", '\t', 3, "the control character U+0009"},
		{"é\u2028x", 0x2028, 1, "a line break (U+2028)"},
		{"x\u0085", 0x85, 1, "a line break (U+0085)"},
		{"safe\u202eevil", 0x202E, 4, "the bidirectional control U+202E"},
		{"\u2066iso", 0x2066, 0, "the bidirectional control U+2066"},
		{"iter\u200bations", 0x200B, 4, "the invisible format character U+200B"},
		{"\ufeffbom", 0xFEFF, 0, "the invisible format character U+FEFF"},
		{"ab\xffc", 0xFFFD, 2, "bytes that are not UTF-8"},
		{"esc\x1b[31m", 0x1B, 3, "the control character U+001B"},
	} {
		r, pos, bad := Bad(tc.in)
		if !bad || r != tc.r || pos != tc.pos || Describe(r) != tc.desc {
			t.Errorf("Bad(%q) = %U, %d, %v (%s); want %U at %d (%s)", tc.in, r, pos, bad, Describe(r), tc.r, tc.pos, tc.desc)
		}
		if err := Check(tc.in); err == nil || strings.ContainsRune(err.Error(), tc.r) && tc.r != 0xFFFD {
			t.Errorf("Check(%q) = %v: want an error that names the character without printing it", tc.in, err)
		}
	}
	for _, ok := range []string{"GET /orders/{{.id}}", "déjà vu ✓ 日本", "<b>x</b> @team [l](u) ##[group] ::x::", "a b"} {
		if _, _, bad := Bad(ok); bad || Check(ok) != nil {
			t.Errorf("Bad(%q) refuses a printable name", ok)
		}
	}
}
