package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
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
	res, err := r.RunAB(context.Background(), ABPlan{Base: tgt, Head: tgt, Order: config.OrderABBA, MaxPairs: 2})
	if err != nil {
		t.Fatalf("A/B on a database per side: %v\n%s", err, log.String())
	}
	if res.Pairs() != 2 {
		t.Fatalf("%d pairs, want 2", res.Pairs())
	}
	for _, side := range []string{"base", "head"} {
		if b, err := os.ReadFile(dir + "/started-" + side); err != nil || strings.TrimSpace(string(b)) != "500" {
			t.Errorf("%s started on a database of %q articles (%v); want its clone of 500", side, b, err)
		}
	}
	for _, side := range []string{"base", "head"} { // before the start, then before each pair's run
		if b, _ := os.ReadFile(dir + "/resets-" + side); strings.Count(string(b), "reset") != 3 {
			t.Errorf("%s's dataset reset %d times, want 3 (before its start and before each of 2 runs)", side, strings.Count(string(b), "reset"))
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
