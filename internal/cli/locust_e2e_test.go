package cli_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// locustfile is what the recipe's users run: one request, a short think.
// Debian's python3-locust 2.12.1 reports an empty version, which a master
// takes for a pre-2.0 worker and refuses ("An old (pre 2.0) worker tried
// to connect"): both ends are given one.
const locustfile = `import locust.runners
from locust import HttpUser, task, constant

if not locust.runners.__version__:
    locust.runners.__version__ = "2.12.1"

class Reader(HttpUser):
    wait_time = constant(0.01)

    @task
    def item(self):
        self.client.get("/item")
`

// Locust's distributed mode, a master and two workers, is the load tool of
// tailgate check and tailgate ab (testdata/config/locust-workers.yml):
// each run's aggregated CSV is imported and judged, and no Locust process
// outlives the job.
func TestLocustMasterAndTwoWorkers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("nine Locust runs take minutes")
	}
	if _, err := exec.LookPath("locust"); err != nil {
		t.Skip("locust is not installed (Debian: python3-locust)")
	}
	var delay atomic.Int64 // the service's added latency, in ms
	service := func(extra *atomic.Int64) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Duration(extra.Load()) * time.Millisecond)
			fmt.Fprint(w, `{"ok": true}`)
		}))
		t.Cleanup(s.Close)
		return s
	}
	base, slow := service(&delay), new(atomic.Int64)
	slow.Store(60)
	head := service(slow)

	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "locustfile.py"), locustfile)
	// The documented example, shorter and on this test's service and port;
	// the locustfile by its whole path, which tells this test's processes.
	// Runs of 2 s: a run's start (three Pythons, the workers joining) takes
	// longer than that, and 2 s of 4 users make ~100 requests of the head
	// (60 ms each) and ~400 of the base, plenty for one verdict.
	cfg := strings.NewReplacer("http://127.0.0.1:8080", base.URL, "5557", freePort(t), "locustfile.py", filepath.Join(dir, "locustfile.py"),
		"-u 20 -r 20 -t 30s", "-u 4 -r 4 -t 2s", "runs: 5", "runs: 2").Replace(string(mustRead(t, "../../testdata/config/locust-workers.yml")))
	mustWrite(t, filepath.Join(dir, "tailgate.yml"), cfg)
	t.Cleanup(func() {
		if left := processesWith(filepath.Join(dir, "locustfile.py")); len(left) > 0 {
			t.Errorf("Locust processes left running:\n%s", strings.Join(left, "\n"))
		}
	})

	bl := filepath.Join(dir, "baseline.json")
	o := tailgateIn(t, dir, nil, "baseline", "record", "-c", "tailgate.yml", "--baseline", bl)
	wantCode(t, o, 0)
	delay.Store(60) // the checked build is slower
	o = tailgateIn(t, dir, nil, "check", "-c", "tailgate.yml", "--runs", "1", "--baseline", bl, "--report", filepath.Join(dir, "check.json"))
	if o.code != 0 && o.code != 1 {
		t.Fatalf("check: exit %d, want a verdict (0 or 1):\n%s", o.code, o)
	}
	in := readReport(t, filepath.Join(dir, "check.json"))
	t.Logf("tailgate check with Locust, a master and two workers (verdict %s):\n%s", in.Verdict.Outcome, o.stdout)
	for _, run := range in.Head {
		if run.Metrics[result.RequestsPerSec] <= 0 || run.Metrics[result.RequestErrorPct] != 0 {
			t.Errorf("a checked run measured %v; want the master's aggregate of both workers' requests, none failed", run.Metrics)
		}
	}

	delay.Store(0)
	ab := cfg + "ab: {base: {url: \"" + base.URL + "\"}, head: {url: \"" + head.URL + "\"}, min_blocks: 3, max_blocks: 3, unsealed: allow}\n"
	mustWrite(t, filepath.Join(dir, "tailgate.yml"), ab)
	o = tailgateIn(t, dir, nil, "ab", "-c", "tailgate.yml", "--noise", "off", "--report", filepath.Join(dir, "ab.json"))
	if o.code != 0 && o.code != 1 {
		t.Fatalf("ab: exit %d, want a verdict (0 or 1):\n%s", o.code, o)
	}
	in = readReport(t, filepath.Join(dir, "ab.json"))
	t.Logf("tailgate ab with Locust, a master and two workers (verdict %s):\n%s", in.Verdict.Outcome, o.stdout)
	if len(in.Base) < 3 || len(in.Head) < 3 {
		t.Errorf("ab judged %d base and %d head runs, want 3 pairs of whole runs", len(in.Base), len(in.Head))
	}
}

// freePort is a loopback port free a moment ago, for Locust's master,
// which binds it again for each of the test's runs: below the ephemeral
// range (target.FreePort), so that no test's outgoing connection takes it
// meanwhile, as one from :0 once was ("the Locust master port was busy").
func freePort(t *testing.T) string {
	t.Helper()
	port, err := target.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(port)
}

// processesWith lists the running processes whose command line holds s.
func processesWith(s string) []string {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var found []string
	for _, path := range cmdlines {
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(s)) {
			found = append(found, filepath.Base(filepath.Dir(path))+": "+string(bytes.ReplaceAll(data, []byte{0}, []byte{' '})))
		}
	}
	return found
}
