package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// feedBench is a benchmark reading the feed file named by %FILE%.
const feedBench = `
target: {url: "http://127.0.0.1:8080"}
load: {model: closed, vus: 3}
feed: {file: %FILE%}
scenarios: [{steps: [{path: '/u/{{feed "user"}}'}]}]
`

func parseFeed(t *testing.T, dir, file, extra string) (*Config, error) {
	t.Helper()
	src := strings.Replace(feedBench, "%FILE%", file, 1) + extra
	return Parse(filepath.Join(dir, "bench.yml"), []byte(src))
}

func TestFeedFilesAreRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "users.csv"), "\uFEFFuser,email\nann,ann@example.com\n\"bo, b\",bob@example.com\n")
	writeFile(t, filepath.Join(dir, "users.json"), `[{"user": "ann", "n": 1, "admin": true}, {"user": "bob", "n": 2.50, "admin": false}]`)
	cfg, err := parseFeed(t, dir, "users.csv", "")
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.Feed
	if f.Per != FeedPerVU || f.AtEnd != FeedWrap {
		t.Errorf("defaults per %q at_end %q, want vu and wrap", f.Per, f.AtEnd)
	}
	wantRows := [][]string{{"ann", "ann@example.com"}, {"bo, b", "bob@example.com"}}
	if !reflect.DeepEqual(f.Columns, []string{"user", "email"}) || !reflect.DeepEqual(f.Rows, wantRows) {
		t.Errorf("csv: columns %q rows %q", f.Columns, f.Rows)
	}
	if !strings.HasPrefix(f.Content, "sha256:") || len(f.Content) != len("sha256:")+64 {
		t.Errorf("content hash %q", f.Content)
	}
	cfg, err = parseFeed(t, dir, "users.json", "")
	if err != nil {
		t.Fatal(err)
	}
	wantRows = [][]string{{"true", "1", "ann"}, {"false", "2.50", "bob"}}
	if !reflect.DeepEqual(cfg.Feed.Columns, []string{"admin", "n", "user"}) || !reflect.DeepEqual(cfg.Feed.Rows, wantRows) {
		t.Errorf("json: columns %q rows %q", cfg.Feed.Columns, cfg.Feed.Rows)
	}
}

func TestFeedContentIsTheDefinition(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.csv"), "user\nann\nbob\n")
	writeFile(t, filepath.Join(dir, "copy-of-a.csv"), "user\nann\nbob\n")
	writeFile(t, filepath.Join(dir, "b.csv"), "user\nann\ncid\n")
	hash := func(file, extra string) string {
		cfg, err := parseFeed(t, dir, file, extra)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.DefinitionHash()
	}
	a := hash("a.csv", "")
	if hash("copy-of-a.csv", "") != a {
		t.Error("the same rows under another file name changed the hash")
	}
	if hash("b.csv", "") == a {
		t.Error("other rows kept the hash: the feed's content is the dataset")
	}
	if hash("a.csv", "  # per is a key of feed\n") != a {
		t.Error("a comment changed the hash")
	}
	cfg, err := Parse(filepath.Join(dir, "bench.yml"), []byte(strings.Replace(feedBench, "feed: {file: %FILE%}", "feed: {file: a.csv, per: iteration}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DefinitionHash() == a {
		t.Error("per: iteration kept the hash of per: vu")
	}
}

func TestFeedProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"ragged.csv":    "user,email\nann,a@x\nbob\n",
		"dup.csv":       "user,user\nann,bob\n",
		"blank.csv":     "user,\nann,x\n",
		"header.csv":    "user\n",
		"empty.csv":     "",
		"nested.json":   `[{"user": {"name": "ann"}}]`,
		"keys.json":     `[{"user": "ann"}, {"name": "bob"}]`,
		"object.json":   `{"user": "ann"}`,
		"none.json":     `[]`,
		"users.txt":     "ann\n",
		"threeRows.csv": "user\na\nb\nc\n",
	} {
		writeFile(t, filepath.Join(dir, name), content)
	}
	if err := os.Mkdir(filepath.Join(dir, "adir.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ file, extra, key, msg string }{
		{"ragged.csv", "", "feed.file", "wrong number of fields"},
		{"dup.csv", "", "feed.file", `column "user" is named twice`},
		{"blank.csv", "", "feed.file", "column 2 has no name"},
		{"header.csv", "", "feed.file", "has no rows"},
		{"empty.csv", "", "feed.file", "the file is empty"},
		{"nested.json", "", "feed.file", "expected a string, number or boolean, got an object"},
		{"keys.json", "", "feed.file", "row 2 has the keys name, row 1 has user"},
		{"object.json", "", "feed.file", "expected a JSON list of objects"},
		{"none.json", "", "feed.file", "has no rows"},
		{"users.txt", "", "feed.file", "expected a .csv file"},
		{"missing.csv", "", "feed.file", "cannot read"},
		{"adir.csv", "", "feed.file", "is not a regular file"},
		{`""`, "", "feed.file", "required"},
	}
	for _, tc := range cases {
		_, err := parseFeed(t, dir, tc.file, tc.extra)
		perr, ok := err.(*Error)
		if !ok || len(perr.Problems) != 1 || perr.Problems[0].Key != tc.key || !strings.Contains(perr.Problems[0].Msg, tc.msg) || perr.Problems[0].Line == 0 {
			t.Errorf("%s: got %v, want one problem at a line: %s: …%s…", tc.file, err, tc.key, tc.msg)
		}
	}
	keyCases := []struct{ feed, key, msg string }{
		{"{file: threeRows.csv, per: user}", "feed.per", `unknown value "user"`},
		{"{file: threeRows.csv, at_end: stop}", "feed.at_end", `unknown value "stop"`},
		{"{file: threeRows.csv, at_end: fail}", "", ""}, // 3 rows for 3 VUs
	}
	for _, tc := range keyCases {
		src := strings.Replace(feedBench, "{file: %FILE%}", tc.feed, 1)
		_, err := Parse(filepath.Join(dir, "bench.yml"), []byte(src))
		if tc.key == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.feed, err)
			}
			continue
		}
		perr, ok := err.(*Error)
		if !ok || len(perr.Problems) != 1 || perr.Problems[0].Key != tc.key || !strings.Contains(perr.Problems[0].Msg, tc.msg) {
			t.Errorf("%s: got %v, want %s: …%s…", tc.feed, err, tc.key, tc.msg)
		}
	}
	src := strings.Replace(strings.Replace(feedBench, "{file: %FILE%}", "{file: threeRows.csv, at_end: fail}", 1), "vus: 3", "vus: 4", 1)
	_, err := Parse(filepath.Join(dir, "bench.yml"), []byte(src))
	if err == nil || !strings.Contains(err.Error(), "feed.at_end: threeRows.csv has 3 rows, and at_end: fail gives each virtual user a row of its own: load.vus 4 needs 4") {
		t.Errorf("4 VUs, 3 rows, at_end: fail: got %v", err)
	}
}
