package cli_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/cli"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// testParallel is how many parallel tests run at once by default.
const testParallel = 6

// TestMain lets the test binary stand in for the tailgate binary: `tailgate
// demo` re-executes os.Executable() with demo-serve, and every child runs
// under `tailgate supervise`, which in a test is this binary; with
// asTailgateEnv set it is tailgate itself (children_test.go); with
// tree-service it is a service of the policy tests (treeservice_test.go).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case treeServiceCommand:
			os.Exit(serveTreeService(os.Args[2:]))
		case articlesServiceCommand:
			os.Exit(serveArticles(os.Args[2:]))
		case articlesLoadCommand:
			os.Exit(articlesLoad(os.Args[2:]))
		case clusterServiceCommand:
			os.Exit(serveCluster(os.Args[2:]))
		}
	}
	if len(os.Args) > 1 && (os.Args[1] == "demo-serve" || os.Args[1] == "supervise" || os.Getenv(asTailgateEnv) != "") {
		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
	}
	// This package's slow tests wait: on load windows, on started services,
	// on git and the built binary, not on the CPU. -parallel defaults to
	// GOMAXPROCS (2 on the CI machine), which left them mostly idle, so
	// unless -parallel is given they run testParallel at a time. Tests that
	// watch every process on the machine or measure it stay serial.
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		flag.Set("test.parallel", strconv.Itoa(testParallel))
	}
	// Started targets write their log files to the temp directory: one of
	// this test binary's own, removed at the end.
	tmp, err := os.MkdirTemp("", "tailgate-cli-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// outcome is what one in-process tailgate invocation produced.
type outcome struct {
	code           int
	stdout, stderr string
}

func (o outcome) String() string {
	return "exit " + strconv.Itoa(o.code) + "\n--- stdout:\n" + o.stdout + "\n--- stderr:\n" + o.stderr
}

// environ is an injected environment: unset variables read as "".
type environ map[string]string

func (e environ) get(k string) string { return e[k] }

// tailgate runs cli.Main in process with an empty environment.
func tailgate(t *testing.T, args ...string) outcome {
	t.Helper()
	return tailgateEnv(t, environ{}, args...)
}

func tailgateEnv(t *testing.T, env environ, args ...string) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &stdout, &stderr, env.get)
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// wantCode fails the test when the exit code is not want, showing the output.
func wantCode(t *testing.T, o outcome, want int) {
	t.Helper()
	if o.code != want {
		t.Fatalf("exit code %d, want %d\n%s", o.code, want, o)
	}
}

func wantContains(t *testing.T, what, got string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(got, s) {
			t.Errorf("%s does not contain %q:\n%s", what, s, got)
		}
	}
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
// Occurrences of the temp dir are replaced by $TMP first so that the golden
// file does not depend on where the test ran.
func golden(t *testing.T, name, got, tmp string) {
	t.Helper()
	if tmp != "" {
		got = strings.ReplaceAll(got, tmp, "$TMP")
	}
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update if the change is intended)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantNoFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists (stat error %v); no file should have been written", path, err)
	}
}
