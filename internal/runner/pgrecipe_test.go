package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/target/pgtest"
)

// Migration sets of each tool's format: a user table, then an article
// table that refers to it; the down parts drop them.
var migrationSets = map[string]map[string]string{
	"goose": {
		"00001_users.sql": `-- +goose Up
CREATE TABLE app_user (id serial PRIMARY KEY, name text NOT NULL);
-- +goose StatementBegin
CREATE FUNCTION user_count() RETURNS bigint AS $$
BEGIN
	RETURN (SELECT count(*) FROM app_user);
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION user_count();
DROP TABLE app_user;
`,
		"00002_article.sql": "-- +goose Up\nCREATE TABLE article (id serial PRIMARY KEY, author int REFERENCES app_user, slug text);\n-- +goose Down\nDROP TABLE article;\n",
		"migrations.go":     "package migrations // embeds the files: not a migration\n",
	},
	"migrate": { // golang-migrate; version 10 after 2, as it orders them
		"1_users.up.sql":     "CREATE TABLE app_user (id serial PRIMARY KEY, name text NOT NULL);",
		"1_users.down.sql":   "DROP TABLE app_user;",
		"2_article.up.sql":   "CREATE TABLE article (id serial PRIMARY KEY, author int REFERENCES app_user, slug text);",
		"2_article.down.sql": "DROP TABLE article;",
		"10_slug.up.sql":     "CREATE INDEX article_slug ON article (slug);",
		"10_slug.down.sql":   "DROP INDEX article_slug;",
	},
	"dbmate": {
		"20240101000000_users.sql":   "-- migrate:up\nCREATE TABLE app_user (id serial PRIMARY KEY, name text NOT NULL);\n\n-- migrate:down\nDROP TABLE app_user;\n",
		"20240102000000_article.sql": "-- migrate:up transaction:false\nCREATE TABLE article (id serial PRIMARY KEY, author int REFERENCES app_user, slug text);\n-- migrate:down\nDROP TABLE article;\n",
	},
	"plain": {
		"001_users.sql":   "CREATE TABLE app_user (id serial PRIMARY KEY, name text NOT NULL);",
		"002_article.sql": "-- the articles\nCREATE TABLE article (id serial PRIMARY KEY, author int REFERENCES app_user, slug text);",
	},
	"command": { // the service's own migrate command, here psql
		"schema.sql": "CREATE TABLE app_user (id serial PRIMARY KEY, name text NOT NULL);\nCREATE TABLE article (id serial PRIMARY KEY, author int REFERENCES app_user, slug text);",
	},
}

// template runs the recipe's template.sh in tree for side; its stderr.
func template(t *testing.T, pg *pgtest.Cluster, tree, side string, files map[string]string, args ...string) (string, error) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(tree, "migrations", name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(recipeDir, "template.sh"), args...)
	cmd.Dir, cmd.Env = tree, append(append(os.Environ(), pg.Env()...), "TAILGATE_SIDE="+side)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	return stderr.String(), err
}

// The recipe's template script with each migration tool's format, on a
// real PostgreSQL: the template, cloned by reset.sh, has the tables and
// the index of the up parts (a down part applied would have dropped
// them), and what the script cannot apply as the tool would fails,
// naming the file.
func TestTemplateAppliesTheUpPartOfEachFormat(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	dir := t.TempDir()
	for side, files := range migrationSets {
		args := []string{"migrations"}
		if side == "command" {
			args = []string{"-c", `test "$PGDATABASE" = app_tpl_command && psql -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -f migrations/schema.sql`}
		}
		if out, err := template(t, pg, filepath.Join(dir, side), side, files, args...); err != nil {
			t.Fatalf("%s: template.sh: %v\n%s", side, err, out)
		}
		reset := exec.Command(filepath.Join(recipeDir, "reset.sh"))
		reset.Env = append(append(os.Environ(), pg.Env()...), "TAILGATE_SIDE="+side)
		if out, err := reset.CombinedOutput(); err != nil {
			t.Fatalf("%s: reset.sh: %v\n%s", side, err, out)
		}
		got := pg.PSQL(t, "app_"+side, `SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'`)
		if got != "app_user,article" {
			t.Errorf("%s: tables %q after the template, want app_user,article", side, got)
		}
		if idx := pg.PSQL(t, "app_"+side, `SELECT count(*) FROM pg_indexes WHERE indexname = 'article_slug'`); side == "migrate" && idx != "1" {
			t.Errorf("golang-migrate: %s slug indexes; want its version 10's", idx)
		}
	}

	goose := migrationSets["goose"]
	for name, c := range map[string]struct {
		file, text, want string
	}{
		"go migration": {"00003_backfill.go", "package migrations\n", "00003_backfill.go: a goose migration in Go"},
		"envsub":       {"00003_grant.sql", "-- +goose ENVSUB ON\n-- +goose Up\nGRANT SELECT ON app_user TO ${READER};\n", "00003_grant.sql: goose's ENVSUB"},
		"down only":    {"00003_drop.sql", "-- migrate:down\nDROP TABLE article;\n", "00003_drop.sql: a down part"},
		"unnumbered":   {"seed.sql", "SELECT 1;\n", "seed.sql: its name has no number"},
		"sql error":    {"00003_bad.sql", "-- +goose Up\n\nCREATE TABEL oops (id int);\n-- +goose Down\nDROP TABLE oops;\n", ":3: ERROR"},
	} {
		files := map[string]string{c.file: c.text}
		for k, v := range goose {
			files[k] = v
		}
		out, err := template(t, pg, filepath.Join(dir, "bad", strings.ReplaceAll(name, " ", "_")), "bad", files, "migrations")
		if err == nil || !strings.Contains(out, c.want) || !strings.Contains(out, "template.sh: migrations/"+c.file) {
			t.Errorf("%s: template.sh returned %v, said:\n%s\nwant a failure naming migrations/%s and %q", name, err, out, c.file, c.want)
		}
	}
}
