package locust

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// nonUTF8Note: Locust 1.x on Windows wrote names in the system code page
// (often GBK). The encoding cannot be known for sure, so the bytes are kept
// visible rather than guessed.
const nonUTF8Note = "some names are not UTF-8 (probably GBK or another legacy code page); their non-ASCII bytes are written as \\xNN"

// cleanName makes a name safe for JSON. A name that is not UTF-8 has every
// non-ASCII byte written as \xNN: legacy multi-byte text can contain byte
// runs that happen to be valid UTF-8, and decoding those would print
// unrelated characters. Distinct names stay distinct.
func cleanName(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			fmt.Fprintf(&b, `\x%02x`, c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
