package seal

import (
	"slices"
	"testing"
)

// Named gives every word that could be a relative path in the tree;
// which of them are files of the base commit is the caller's question.
func TestNamedPaths(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		shell string
		want  []string
	}{
		{shell: "sh scripts/reset.sh --rows=10", want: []string{"sh", "scripts/reset.sh", "10"}},
		{shell: `./scripts/build.sh && cp "service.conf" out/delay`, want: []string{"scripts/build.sh", "cp", "service.conf", "out/delay"}},
		{shell: `exec "$TAILGATE_SIDE_DIR"/scripts/counters.sh; CONF=conf/app.yml ./run`, want: []string{"exec", "scripts/counters.sh", "conf/app.yml", "run"}},
		{shell: `k6 run load/script.js > /tmp/out.json 2>&1`, want: []string{"k6", "run", "load/script.js", "2", "1"}},
		{shell: `cat $HOME/x ~/y ../z /abs/p *.sh`, want: []string{"cat"}},
		{args: []string{"python3", "tools/verify.py", "--config=./db/seed.sql"}, want: []string{"python3", "tools/verify.py", "db/seed.sql"}},
	} {
		if got := Named(tc.args, tc.shell); !slices.Equal(got, tc.want) {
			t.Errorf("Named(%q, %q) = %q, want %q", tc.args, tc.shell, got, tc.want)
		}
	}
}
