package cli_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/target/pgtest"
)

// clusterServiceCommand makes the test binary (see TestMain) a service on
// PostgreSQL: every GET /items runs psql against --db, as many times as
// that database's work table says (1 on the base, more on the head: an
// N+1 of whole connections), so the cluster does each side's work in
// backends the postmaster forks.
const clusterServiceCommand = "cluster-service"

func serveCluster(args []string) int {
	fs := flag.NewFlagSet(clusterServiceCommand, flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	db := fs.String("db", "", "the database (the server from PGHOST, PGPORT, PGUSER)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	psql := func(ctx context.Context, sql string) (string, error) {
		out, err := exec.CommandContext(ctx, "psql", "-X", "-Atq", "-v", "ON_ERROR_STOP=1", "-d", *db, "-c", sql).Output()
		return strings.TrimSpace(string(out)), err
	}
	v, err := psql(context.Background(), "SELECT n FROM work")
	n, _ := strconv.Atoi(v)
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "database %s: %q, %v\n", *db, v, err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		for range n {
			if _, err := psql(r.Context(), "SELECT count(*) FROM item WHERE id % 7 = 0"); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		fmt.Fprint(w, `{"ok": true}`)
	})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// clusterBenchmark is docs/footprint.md's database-per-side recipe with
// the whole server measured on both sides ("Listing the whole server on
// both sides (pid_file of postmaster.pid) counts them too, but then …
// every phase alternates"): a database per side in one cluster, the
// cluster's postmaster and every backend it forks as the part postgres,
// written once under target and taken by both sides of their own.
const clusterBenchmark = `name: cluster
target:                      # run and check: one database, app_run
  url: http://127.0.0.1:{{port}}
  start: &start
    command: exec "@SVC@" cluster-service --addr "127.0.0.1:{{port}}" --db "app_${TAILGATE_SIDE:-run}"
  ready: {path: /health, timeout: 20s, interval: 20ms}
  measure: [{name: postgres, pid_file: "@PIDFILE@"}]   # the whole cluster
ab:
  base: {url: "http://127.0.0.1:{{port}}", start: *start}
  head: {url: "http://127.0.0.1:{{port}}", start: *start}
  min_blocks: 3
  max_blocks: 4
load: {model: closed, vus: 1, warmup: 0s, duration: 600ms}
scenarios: [{steps: [{path: /items, expect: {ok: true}}]}]
gate:
  metrics: [part.postgres.cpu_ms_per_iteration, path_cpu_ms_per_iteration]
`

// The whole cluster on both sides, end to end on a real PostgreSQL: the
// file validates, the job alternates every phase because both sides
// measure the one server, every block of both sides measures the
// cluster's CPU (its backends come and go with each connection), and the
// head's N+1 of connections is a regression of the cluster's CPU per
// iteration (issue 45: no A/B job had run on a real whole cluster).
func TestABWholeClusterOnBothSides(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and services for every block")
	}
	t.Parallel()
	// The server runs as the postgres user, under this test binary's
	// temp directory (TestMain's, 0700): it must be able to pass through.
	if err := os.Chmod(os.TempDir(), 0o711); err != nil {
		t.Fatal(err)
	}
	pg := pgtest.Start(t)
	for side, n := range map[string]int{"base": 1, "head": 4} {
		pg.PSQL(t, "postgres", "CREATE DATABASE app_"+side)
		pg.PSQL(t, "app_"+side, "CREATE TABLE item AS SELECT i AS id FROM generate_series(1, 20000) i; CREATE TABLE work AS SELECT "+strconv.Itoa(n)+" AS n")
	}
	dir := t.TempDir()
	cfg := strings.NewReplacer("@SVC@", os.Args[0], "@PIDFILE@", pg.PIDFile()).Replace(clusterBenchmark)
	mustWrite(t, filepath.Join(dir, "tailgate.yml"), cfg)
	env := append(pg.Env(), "RUNNER_TEMP="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "GITHUB_ACTIONS=")

	o := tailgateIn(t, dir, env, "validate")
	wantCode(t, o, 0)
	wantContains(t, "validate", o.stdout, "base measured: the target's processes (tailgate starts them); part postgres (pid from "+pg.PIDFile(),
		"head measured: the target's processes (tailgate starts them); part postgres", "every phase alternates between the sides")

	report := filepath.Join(dir, "report.json")
	o = tailgateIn(t, dir, env, "ab", "-q", "--report", report)
	if o.code != 1 {
		t.Fatalf("exit %d, want 1 (the head's four connections a request):\n%s", o.code, o)
	}
	var rep struct {
		Regressions []string                        `json:"regressions"`
		Runs        map[string][]map[string]float64 `json:"runs"`
	}
	if err := json.Unmarshal(mustRead(t, report), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(rep.Regressions, " "), "part.postgres.cpu_ms_per_iteration") {
		t.Errorf("regressions %v, want the cluster's CPU per iteration", rep.Regressions)
	}
	for _, side := range []string{"base", "head"} {
		if len(rep.Runs[side]) < 3 {
			t.Fatalf("%s: %d blocks", side, len(rep.Runs[side]))
		}
		for i, r := range rep.Runs[side] {
			if r["part.postgres.cpu_ms_per_iteration"] <= 0 || r["path_cpu_ms_per_iteration"] <= r["part.postgres.cpu_ms_per_iteration"] {
				t.Errorf("%s block %d: %v, want the cluster's CPU measured, inside the path's", side, i+1, r)
			}
		}
	}
}
