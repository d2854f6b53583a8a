package importer_test

import (
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestMessageClassesOrder(t *testing.T) {
	t.Parallel()
	c := importer.MessageClasses{
		Status:     func(msg string) bool { return strings.HasPrefix(msg, "HTTP ") },
		Timeout:    []string{"timed out"},
		Connection: []string{"refused"},
	}
	for msg, want := range map[string]string{
		"HTTP 503 (timed out upstream)":  result.ErrStatus,  // status first
		"Read Timed Out: refused":        result.ErrTimeout, // fragments match lower-cased text
		"Connection REFUSED":             result.ErrConnection,
		"expected body to contain 'ok'":  result.ErrExpect,
		"http 503 (status is case-sens)": result.ErrExpect, // Status sees the message as written
	} {
		if got := c.Class(msg); got != want {
			t.Errorf("Class(%q) = %s, want %s", msg, got, want)
		}
	}
}

func TestOneLineFoldsAndClips(t *testing.T) {
	t.Parallel()
	if got := importer.OneLine("  a\n\tb   c \r\n"); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
	long := strings.Repeat("é", 250)
	if got := importer.OneLine(long); got != strings.Repeat("é", 200)+"…" {
		t.Errorf("OneLine of 250 characters = %d runes", len([]rune(got)))
	}
	if got := importer.Clip("héllo", 5); got != "héllo" {
		t.Errorf("Clip at length = %q", got)
	}
	if got := importer.Clip("héllo", 2); got != "hé…" {
		t.Errorf("Clip(2) = %q", got)
	}
}
