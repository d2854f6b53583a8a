package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	var err error
	fs := flag.NewFlagSet(clusterServiceCommand, flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	db := fs.String("db", "", "the database (the server from PGHOST, PGPORT, PGUSER)")
	pool := fs.Bool("pool", false, "run every query on one connection kept open (one psql), as a pool of one; else a psql a query")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	psql := func(ctx context.Context, sql string) (string, error) {
		out, err := exec.CommandContext(ctx, "psql", "-X", "-Atq", "-v", "ON_ERROR_STOP=1", "-d", *db, "-c", sql).Output()
		return strings.TrimSpace(string(out)), err
	}
	if *pool {
		if psql, err = pooled(*db); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
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

// pooled is a query function on one psql session: its backend lives as
// long as the service, as a pooled connection's does.
func pooled(db string) (func(context.Context, string) (string, error), error) {
	cmd := exec.Command("psql", "-X", "-Atq", "-v", "ON_ERROR_STOP=1", "-d", db)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := bufio.NewScanner(out)
	var mu sync.Mutex
	return func(_ context.Context, sql string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if _, err := fmt.Fprintf(in, "%s;\n\\echo __end__\n", sql); err != nil {
			return "", err
		}
		var got []string
		for lines.Scan() {
			if lines.Text() == "__end__" {
				return strings.Join(got, "\n"), nil
			}
			got = append(got, lines.Text())
		}
		return "", fmt.Errorf("psql ended: %v", lines.Err())
	}, nil
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
load: {model: closed, vus: 1, warmup: 0s, duration: 2s}   # 4 windows a side per block: the part's CPU is read in 10 ms ticks
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
	pg, dir, env := clusterJob(t, clusterBenchmark, 20000, 4)
	o := tailgateIn(t, dir, env, "validate")
	wantCode(t, o, 0)
	wantContains(t, "validate", o.stdout, "base measured: the target's processes (tailgate starts them); part postgres (pid file "+pg.PIDFile(),
		"head measured: the target's processes (tailgate starts them); part postgres", "every phase alternates between the sides")
	rep := clusterAB(t, dir, env)
	for _, side := range []string{"base", "head"} {
		for i, r := range rep.Runs[side] {
			if r["part.postgres.cpu_ms_per_iteration"] <= 0 || r["path_cpu_ms_per_iteration"] <= r["part.postgres.cpu_ms_per_iteration"] {
				t.Errorf("%s block %d: %v, want the cluster's CPU measured, inside the path's", side, i+1, r)
			}
		}
	}
}

// clusterJob starts a PostgreSQL cluster with a database per side, each
// an item table of rows rows and the queries its service makes a request
// (1 on the base, headQueries on the head), and writes the benchmark
// (@SVC@ this binary, @PIDFILE@ the postmaster's pid file) in a
// directory; it returns the cluster, the directory and the environment
// tailgate runs in.
func clusterJob(t *testing.T, benchmark string, rows, headQueries int) (*pgtest.Cluster, string, []string) {
	t.Helper()
	// The server runs as the postgres user, under this test binary's
	// temp directory (TestMain's, 0700): it must be able to pass through.
	if err := os.Chmod(os.TempDir(), 0o711); err != nil {
		t.Fatal(err)
	}
	pg := pgtest.Start(t)
	for side, n := range map[string]int{"base": 1, "head": headQueries} {
		pg.PSQL(t, "postgres", "CREATE DATABASE app_"+side)
		pg.PSQL(t, "app_"+side, fmt.Sprintf("CREATE TABLE item AS SELECT i AS id FROM generate_series(1, %d) i; CREATE TABLE work AS SELECT %d AS n", rows, n))
	}
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "tailgate.yml"), strings.NewReplacer("@SVC@", os.Args[0], "@PIDFILE@", pg.PIDFile()).Replace(benchmark))
	return pg, dir, append(pg.Env(), "RUNNER_TEMP="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "GITHUB_ACTIONS=")
}

// clusterReport is what the cluster tests read of the JSON report.
type clusterReport struct {
	Regressions []string                        `json:"regressions"`
	Runs        map[string][]map[string]float64 `json:"runs"`
}

// clusterAB runs tailgate ab in dir and wants a regression (exit 1) with
// the postgres part's CPU per iteration higher on head (the head's more
// queries a request), judged on at least 3 blocks a side.
func clusterAB(t *testing.T, dir string, env []string) clusterReport {
	t.Helper()
	report := filepath.Join(dir, "report.json")
	o := tailgateIn(t, dir, env, "ab", "-q", "--report", report)
	if o.code != 1 {
		t.Fatalf("exit %d, want 1 (the head's more queries a request):\n%s", o.code, o)
	}
	var rep clusterReport
	if err := json.Unmarshal(mustRead(t, report), &rep); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"base", "head"} {
		if len(rep.Runs[side]) < 3 {
			t.Fatalf("%s: %d blocks", side, len(rep.Runs[side]))
		}
	}
	// The job stops at its first regression: the database's CPU per
	// iteration, or the path's, which holds it; either way the database's
	// CPU per iteration is higher on head in the blocks' medians.
	part := "part.postgres.cpu_ms_per_iteration"
	median := func(side string) float64 {
		var v []float64
		for _, r := range rep.Runs[side] {
			v = append(v, r[part])
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	if len(rep.Regressions) == 0 || median("head") <= median("base") {
		t.Errorf("regressions %v, %s base %.3f head %.3f: want the head's database CPU per iteration higher", rep.Regressions, part, median("base"), median("head"))
	}
	return rep
}

// backendsBenchmark is docs/footprint.md's database-per-side recipe as
// written there: each side's own measure names its database's backends
// by command line, and the service keeps its connection (a pool of one).
// The parts are the sides' own, so an open phase loads both at once.
const backendsBenchmark = `name: backends
target:                      # run and check: one database, app_run
  url: http://127.0.0.1:{{port}}
  start: &start
    command: exec "@SVC@" cluster-service --pool --addr "127.0.0.1:{{port}}" --db "app_${TAILGATE_SIDE:-run}"
  ready: {path: /health, timeout: 20s, interval: 20ms}
ab:
  base:
    url: http://127.0.0.1:{{port}}
    start: *start
    measure: [{name: postgres, process: {cmdline: '^postgres: \S+ app_base '}}]
  head:
    url: http://127.0.0.1:{{port}}
    start: *start
    measure: [{name: postgres, process: {cmdline: '^postgres: \S+ app_head '}}]
  min_blocks: 3
  max_blocks: 4
load: {model: open, rate: 10/s, max_inflight: 16, warmup: 0s, duration: 1s, request_timeout: 5s}
scenarios: [{steps: [{path: /items, expect: {ok: true}}]}]
gate:
  metrics: [part.postgres.cpu_ms_per_iteration]
`

// The database-per-side recipe with each side's backends as its part, end
// to end on a real PostgreSQL: both sides are loaded at once (their parts
// are apart), every block of both sides measures its own backend, and the
// head's N+1 of statements on its pooled connection is a regression of
// its part's CPU per iteration.
func TestABBackendsPerSide(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and services for every block")
	}
	t.Parallel()
	_, dir, env := clusterJob(t, backendsBenchmark, 100000, 3)
	o := tailgateIn(t, dir, env, "validate")
	wantCode(t, o, 0)
	wantContains(t, "validate", o.stdout, `base measured: the target's processes (tailgate starts them); part postgres (processes matching ^postgres: \S+ app_base )`,
		"an open phase loads both sides at once")
	rep := clusterAB(t, dir, env)
	for _, side := range []string{"base", "head"} {
		for i, r := range rep.Runs[side] {
			if r["part.postgres.cpu_ms_per_iteration"] <= 0 {
				t.Errorf("%s block %d: %v, want its backend's CPU measured", side, i+1, r)
			}
		}
	}
}
