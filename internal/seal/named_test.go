package seal

import (
	"slices"
	"testing"
)

// Runs gives every word that could be a relative path of a file the
// command runs (its programs, an interpreter's script); which of them
// are files of the base commit is the caller's question. Files a command
// only reads or writes are the code's, and are left out.
func TestRunsNamesTheFilesACommandRuns(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		shell string
		want  []string
	}{
		{shell: "sh scripts/reset.sh --rows=10", want: []string{"sh", "scripts/reset.sh"}},
		{shell: `./scripts/build.sh && cp "service.conf" out/delay`, want: []string{"scripts/build.sh", "cp"}},
		{shell: `mkdir -p out && cp service.conf out/delay`, want: []string{"mkdir", "cp"}},
		{shell: `exec "$TAILGATE_SIDE_DIR"/scripts/counters.sh; CONF=conf/app.yml ./run`, want: []string{"scripts/counters.sh", "run"}},
		{shell: `k6 run -q load/script.js > /tmp/out.json 2>&1`, want: []string{"k6", "load/script.js"}},
		{shell: `exec sh out/run.sh "/abs/svc" --addr x`, want: []string{"sh", "out/run.sh"}},
		{shell: `cat $HOME/x | python3 -u tools/parse.py`, want: []string{"cat", "python3", "tools/parse.py"}},
		{shell: `make -f build/Makefile all; make test`, want: []string{"make", "build/Makefile", "make", "GNUmakefile", "makefile", "Makefile"}},
		{shell: `make -C svc -j2 build`, want: []string{"make", "svc/GNUmakefile", "svc/makefile", "svc/Makefile"}},
		{args: []string{"make", "--directory=svc", "--file=x.mk"}, want: []string{"make", "svc/x.mk"}},
		{shell: `make -C /abs build`, want: []string{"make"}},
		{shell: `. ./env.sh; bash -c 'echo hi'`, want: []string{"env.sh", "bash"}},
		{args: []string{"python3", "tools/verify.py", "--config=./db/seed.sql"}, want: []string{"python3", "tools/verify.py"}},
		{args: []string{"./bin/svc", "-addr", "127.0.0.1:1"}, want: []string{"bin/svc"}},
	} {
		if got := Runs(tc.args, tc.shell); !slices.Equal(got, tc.want) {
			t.Errorf("Runs(%q, %q) = %q, want %q", tc.args, tc.shell, got, tc.want)
		}
	}
}
