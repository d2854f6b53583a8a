package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/target/pgtest"
)

// recipeDir holds the PostgreSQL recipe docs/footprint.md documents.
var recipeDir, _ = filepath.Abs("../../bench/postgres")

// writeTree writes a source tree's migrations: a table of 500 articles
// with an index on slug, which the head's second migration drops (the
// schema regression of issue 36).
func writeTree(t *testing.T, dir string, dropIndex bool) {
	t.Helper()
	files := map[string]string{
		"migrations/001_articles.sql": `CREATE TABLE article (id serial PRIMARY KEY, slug text NOT NULL, body text);
CREATE INDEX article_slug ON article (slug);
INSERT INTO article (slug, body) SELECT 'a-' || i, repeat('x', 200) FROM generate_series(1, 500) i;`,
	}
	if dropIndex {
		files["migrations/002_drop_slug_index.sql"] = `DROP INDEX article_slug;`
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The docs' recipe for a database per side, on a real PostgreSQL: the
// build makes each tree's template from that tree's migrations, the reset
// clones the side's template, and a service that exits at start when its
// database is missing starts on both sides, because each side's dataset
// is reset before its first start. The head's database lacks the index
// its tree dropped; the base's has it.
func TestABDatabasePerSideFromEachTreesTemplate(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	dir := t.TempDir()
	trees := map[string]string{"base": filepath.Join(dir, "base"), "head": filepath.Join(dir, "head")}
	writeTree(t, trees["base"], false)
	writeTree(t, trees["head"], true)

	tgt := serviceTarget(t, dir+"/target.env")
	tgt.URL = "http://127.0.0.1:" + config.PortPlaceholder // both sides at once
	tgt.Start.Env[serveEnv] = "127.0.0.1:" + config.PortPlaceholder
	// Like a service whose pool connects at start: no database, no service.
	tgt.Start.Command.Shell = `psql -X -Atq -d "app_$TAILGATE_SIDE" -c 'SELECT count(*) FROM article' > "` + dir + `/started-$TAILGATE_SIDE" || exit 3; exec "$SERVICE"`
	cfg := benchConfig(tgt.URL, 1)
	cfg.Target = tgt
	cfg.Build = &config.Build{Command: config.Command{Shell: `"` + recipeDir + `/template.sh" migrations`}, Timeout: config.Duration(2 * time.Minute)}
	cfg.Dataset = config.Dataset{
		Reset:  &config.Action{Command: &config.Command{Shell: `"` + recipeDir + `/reset.sh" && echo reset >> "` + dir + `/resets-$TAILGATE_SIDE"`}},
		Verify: &config.Check{Action: config.Action{Command: &config.Command{Shell: `test "$(psql -X -Atq -d "app_$TAILGATE_SIDE" -c 'SELECT count(*) FROM article')" = 500`}}},
	}
	var log bytes.Buffer
	r := &Benchmark{Config: cfg, Environ: append(os.Environ(), pg.Env()...), Supervisor: []string{testExe(t), supervisorArg}, TargetLogDir: dir, Log: &log}
	for side, tree := range trees {
		if err := r.Build(context.Background(), tree, side); err != nil {
			t.Fatalf("building %s's template: %v\n%s", side, err, log.String())
		}
	}
	res, err := r.RunAB(context.Background(), ABPlan{Base: tgt, Head: tgt, Order: config.OrderABBA, MaxBlocks: 2})
	if err != nil {
		t.Fatalf("A/B on a database per side: %v\n%s", err, log.String())
	}
	if res.Units() != 2 {
		t.Fatalf("%d blocks, want 2", res.Units())
	}
	for _, side := range []string{"base", "head"} {
		if b, err := os.ReadFile(dir + "/started-" + side); err != nil || strings.TrimSpace(string(b)) != "500" {
			t.Errorf("%s started on a database of %q articles (%v); want its clone of 500", side, b, err)
		}
	}
	for _, side := range []string{"base", "head"} { // before the start, then before each block's phase
		if b, _ := os.ReadFile(dir + "/resets-" + side); strings.Count(string(b), "reset") != 3 {
			t.Errorf("%s's dataset reset %d times, want 3 (before its start and before each of 2 blocks)", side, strings.Count(string(b), "reset"))
		}
	}
	index := `SELECT count(*) FROM pg_indexes WHERE indexname = 'article_slug'`
	if got := pg.PSQL(t, "app_base", index); got != "1" {
		t.Errorf("base's database has %s slug indexes, want its tree's 1", got)
	}
	if got := pg.PSQL(t, "app_head", index); got != "0" {
		t.Errorf("head's database has %s slug indexes, want 0: its tree's migration dropped it", got)
	}
	if strings.Contains(log.String(), "before the first start failed") {
		t.Errorf("log says a reset before a start failed:\n%s", log.String())
	}
}

// lookups is the N+1 of an article page: one author lookup per article.
func lookups(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("SELECT name FROM app_user WHERE id = " + strconv.Itoa(i) + ";")
	}
	return b.String()
}

// An A/B job on a real PostgreSQL whose head has an injected N+1 (23
// author lookups per page, the base one join): with pg_stat_statements as
// the counter source, each side's runs count their own database's
// statements and sessions, and the report, in the PR comment too, names
// the lookup that grew, by its normalised text.
func TestABNPlusOneNamedByPGStatStatements(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	pg.PSQL(t, "postgres", "CREATE EXTENSION pg_stat_statements")
	for _, db := range []string{"app_base", "app_head"} {
		pg.PSQL(t, "postgres", "CREATE DATABASE "+db)
		pg.PSQL(t, db, `CREATE TABLE app_user (id int PRIMARY KEY, name text);
CREATE TABLE article (id int PRIMARY KEY, author int);
INSERT INTO app_user SELECT i, 'user ' || i FROM generate_series(1, 40) i;
INSERT INTO article SELECT i, 1 + i % 40 FROM generate_series(1, 500) i;`)
	}
	dir := t.TempDir()
	side := func(db, sql string) config.Target {
		tgt := serviceTarget(t, dir+"/"+db+".env")
		tgt.URL = "http://127.0.0.1:" + config.PortPlaceholder
		tgt.Start.Env[serveEnv] = "127.0.0.1:" + config.PortPlaceholder
		tgt.Start.Env["PGDATABASE"] = db
		tgt.Start.Env[itemsSQLEnv] = sql
		tgt.Counters = []config.CounterSource{{Name: "pg", PGStatStatements: &config.PGStatSource{Database: "app_${TAILGATE_SIDE}"}, Gate: []string{"calls"}}}
		return tgt
	}
	page := "SELECT a.id, u.name FROM article a JOIN app_user u ON u.id = a.author ORDER BY a.id LIMIT 23;"
	base := side("app_base", page)
	head := side("app_head", "SELECT id, author FROM article ORDER BY id LIMIT 23;"+lookups(23))
	cfg := benchConfig(base.URL, 1)
	cfg.Dataset = config.Dataset{}
	// A psql per page: slow on a loaded machine, so few pages, patiently.
	cfg.Load.Rate, cfg.Load.MaxInflight = config.Rate{PerSecond: 5}, 8
	cfg.Load.Duration, cfg.Load.RequestTimeout = config.Duration(2*time.Second), config.Duration(15*time.Second)
	r := &Benchmark{Config: cfg, Environ: append(os.Environ(), pg.Env()...), Supervisor: []string{testExe(t), supervisorArg}, TargetLogDir: dir}
	res, err := r.RunAB(context.Background(), ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxBlocks: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		name   string
		runs   []result.Run
		lo, hi float64 // statements per iteration
	}{{"base", res.Base.Runs, 0.9, 1.2}, {"head", res.Head.Runs, 21, 26.5}} {
		for i, run := range s.runs {
			calls, ok := run.Metrics[result.CounterKey("pg", "calls")]
			sessions := run.Metrics[result.CounterKey("pg", "sessions")]
			if !ok || calls < s.lo || calls > s.hi || sessions < 0.8 || sessions > 1.25 {
				t.Errorf("%s run %d: %v statements and %v sessions per iteration (notes %q); want %v–%v statements and a connection per page", s.name, i, calls, sessions, run.Notes, s.lo, s.hi)
			}
		}
	}
	in := report.Input{Name: "rw", Mode: "ab", Base: res.Base.Runs, Head: res.Head.Runs}
	md := report.Markdown(in)
	if !strings.Contains(md, `pg: calls 0 → 2`) || !strings.Contains(md, `SELECT name FROM app\_user WHERE id = \$1`) {
		t.Fatalf("the comment does not name the N+1's lookup:\n%s", md)
	}
	t.Logf("PR comment:\n%s", md)
}
