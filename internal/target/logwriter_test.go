package target

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// What a child prints reaches the log one line at a time with its escape
// sequences and other controls written out, never as bytes a terminal or
// the job log would act on.
func TestEscapeControls(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text\twith a tab":         "plain text\twith a tab",
		"\x1b[31mred\x1b[0m":             `\x1b[31mred\x1b[0m`,
		"progress 10%\rprogress 20%":     `progress 10%\rprogress 20%`,
		"safe\u202eevil \u200bhidden":    `safe\u202eevil \u200bhidden`,
		"bell\a nel\u0085 sep\u2028 x":   `bell\x07 nel\x85 sep\u2028 x`,
		"bad \xff byte":                  `bad \xff byte`,
		"\x1b]0;title\x07 \x1b[2J clear": `\x1b]0;title\x07 \x1b[2J clear`,
	} {
		if got := EscapeControls(in); got != want {
			t.Errorf("EscapeControls(%q) = %q, want %q", in, got, want)
		}
	}
}

// A build's output (and so a target's live output and a dataset
// command's, through the same writer and lastBytes) is escaped in the log
// and in the error that quotes it.
func TestBuildOutputIsEscaped(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	c := &config.Command{Shell: `printf '\033[31mred\033[0m\n\033[2Jcleared\n'; exit 3`}
	err := RunBuild(context.Background(), c, Children{}, t.TempDir(), 30*time.Second, &log, "build")
	if err == nil {
		t.Fatal("the failing build did not fail")
	}
	for name, text := range map[string]string{"log": log.String(), "error": err.Error()} {
		if strings.ContainsRune(text, 0x1b) {
			t.Errorf("the %s holds a raw escape: %q", name, text)
		}
		if !strings.Contains(text, `\x1b[31mred\x1b[0m`) {
			t.Errorf("the %s does not show the escape written out: %q", name, text)
		}
	}
	if want := "[build] \\x1b[31mred\\x1b[0m\n[build] \\x1b[2Jcleared\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
}
