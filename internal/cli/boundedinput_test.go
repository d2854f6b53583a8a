package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files past their bounds are bad input: exit 2, one line naming the file
// and the bound, no Go trace. tailgate history on a 100 MB history (as a
// file of holes: its size is what tailgate looks at first), check on a
// 100 MB baseline, validate on a benchmark file of aliases that expand
// exponentially.
func TestFilesPastTheirBoundsAreBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	history := filepath.Join(dir, "api.history.jsonl")
	mustWrite(t, history, "")
	if err := os.Truncate(history, 100<<20); err != nil {
		t.Fatal(err)
	}
	var bomb strings.Builder
	k := strings.Repeat("k", 1000)
	fmt.Fprintf(&bomb, "x-l0: &l0 {%s0: v, %s1: v}\n", k, k)
	for i := 1; i < 60; i++ {
		fmt.Fprintf(&bomb, "x-l%d: &l%d {%s%da: *l%d, %s%db: *l%d}\n", i, i, k, i, i-1, k, i, i-1)
	}
	bomb.WriteString("target: {url: 'http://127.0.0.1:1'}\nload: {rate: 1}\nscenarios: [{steps: [{path: /, json: *l59}]}]\n")
	aliases := filepath.Join(dir, "aliases.yml")
	mustWrite(t, aliases, bomb.String())
	head := writeResult(t, dir, "head.json", synthResult(5, 1, "h1"))
	bigBaseline := filepath.Join(dir, "api.json")
	mustWrite(t, bigBaseline, "")
	if err := os.Truncate(bigBaseline, 100<<20); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "--history", history}, "history file " + history + " is 100 MiB, larger than the 16 MiB tailgate reads"},
		{[]string{"validate", "-c", aliases}, "a key path longer than 1024 bytes"},
		{[]string{"check", "--result", head, "--baseline", bigBaseline}, "baseline file " + bigBaseline + " is 100 MiB, larger than the 16 MiB tailgate reads"},
	} {
		o := tailgate(t, tc.args...)
		wantCode(t, o, 2)
		wantContains(t, "stderr", o.stderr, tc.want)
		if strings.Contains(o.stderr, "goroutine") || strings.Contains(o.stderr, "internal error") || len(o.stderr) > 1000 {
			t.Errorf("%v: stderr is not one clear line:\n%.2000s", tc.args, o.stderr)
		}
	}
}
