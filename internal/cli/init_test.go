package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

func TestInitWritesABenchmarkThatValidates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "tailgate.yml")
	o := tailgate(t, "init", "-o", out, "--name", "items", "--url", "http://127.0.0.1:{{port}}/items?limit=5",
		"--start", "python3 app.py --port {{port}}", "--build", "true")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "wrote "+out, "tailgate run -c "+out+" --runs 1", "tailgate ab -c "+out+" --base-ref main")
	cfg, err := config.LoadFile(out)
	if err != nil {
		t.Fatalf("the written file does not load: %v\n%s", err, mustRead(t, out))
	}
	if cfg.Name != "items" || cfg.Target.URL != "http://127.0.0.1:{{port}}" || cfg.Target.Start.Command.String() != "python3 app.py --port {{port}}" ||
		cfg.Target.Ready.Path != "/items" || cfg.Build == nil || len(cfg.Load.Phases) != 2 {
		t.Errorf("written benchmark: %+v", cfg)
	}
	if st := cfg.Scenarios[0].Steps[0]; st.Request.Method != "GET" || st.Request.Path != "/items?limit=5" {
		t.Errorf("the step: %+v", st.Request)
	}
	wantCode(t, tailgate(t, "validate", "-c", out), 0)

	// An existing file is kept unless --force.
	mustWrite(t, out, "mine\n")
	o = tailgate(t, "init", "-o", out, "--start", "./server {{port}}")
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "exists", "--force")
	if got := string(mustRead(t, out)); got != "mine\n" {
		t.Errorf("init replaced an existing file without --force: %q", got)
	}
	wantCode(t, tailgate(t, "init", "-o", out, "--force"), 0) // no --start: a fixed port
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `url: "http://127.0.0.1:8080"`) {
		t.Errorf("without --start the URL is a fixed port:\n%s", b)
	}

	wantCode(t, tailgate(t, "init", "-o", filepath.Join(dir, "x.yml"), "--url", "ftp://x"), 2)
}

// init's dataset advice is a reset the service does itself (a request),
// not a file copy, which fails under a service that reads its data only
// at start (docs/config.md); uncommented, the advice is a dataset tailgate
// accepts.
func TestInitDatasetAdviceIsAResetRequest(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "tailgate.yml")
	wantCode(t, tailgate(t, "init", "-o", out, "--start", "./server --port {{port}}"), 0)
	text := string(mustRead(t, out))
	if strings.Contains(text, "cp ") || !strings.Contains(text, "SQLite opened once") {
		t.Errorf("init suggests a file copy or does not say why not:\n%s", text)
	}
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "# dataset:") || strings.HasPrefix(line, "#   ") {
			line = strings.TrimPrefix(line, "# ")
		}
		lines = append(lines, line)
	}
	cfg, err := config.Parse(out, []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatalf("the dataset advice, uncommented, does not validate: %v", err)
	}
	if r := cfg.Dataset.Reset; r == nil || r.Request == nil || r.Request.Path != "/__reset" || r.Request.Method != "POST" {
		t.Errorf("the uncommented reset is %+v, want a POST /__reset request", cfg.Dataset.Reset)
	}
}
