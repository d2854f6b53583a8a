package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// flaskConfig is docs/config.md's session-login example, pointed at the
// Flask app of testdata/flasksession.
const flaskConfig = `
target: {url: "http://127.0.0.1:%d"}
load: {model: closed, vus: 4, warmup: 300ms, duration: 1500ms%s}
setup:
  vu:
    - name: login form
      path: /login
      save: {csrf: {header: X-CSRF-Token}}
    - name: login
      method: POST
      path: /login
      headers: {Content-Type: application/x-www-form-urlencoded}
      body: 'username=user{{vu}}&password={{env "APP_PASSWORD"}}&csrf_token={{.csrf}}'
      status: 302
scenarios:
  - name: todos
    steps:
      - name: add
        method: POST
        path: /todos
        headers: {X-CSRF-Token: "{{.csrf}}"}
        json: {title: "todo {{seq}}"}
        status: 201
      - name: list
        path: /todos
        expect: {user: "user{{vu}}"}
`

// startFlask starts the Flask app on a free loopback port, or skips the
// test where Python or Flask is not installed.
func startFlask(t *testing.T) int {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	if out, err := exec.Command(py, "-c", "import flask").CombinedOutput(); err != nil {
		t.Skipf("Flask not installed (apt-get install python3-flask): %v %s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(py, "testdata/flasksession/app.py", fmt.Sprint(port))
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/health", port))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return port
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Flask app did not answer /health within 20 s: %v\n%s", err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func flaskPlan(t *testing.T, port int, cookies string) (*scenario.Plan, *config.Config) {
	t.Helper()
	cfg, err := config.Parse("flask.yml", fmt.Appendf(nil, flaskConfig, port, cookies))
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.CompileWith(cfg.Scenarios, scenario.Inputs{Seed: cfg.Seed, Setup: cfg.Setup, NoCookies: !cfg.Load.CookieJar(),
		Getenv: func(k string) string { return map[string]string{"APP_PASSWORD": "open-sesame"}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return p, cfg
}

// A Flask app behind its session login (a CSRF-checked form login, a
// Secure session cookie) is benchmarked as its users use it: each
// virtual user logs in once, every iteration passes in its session, and
// the same requests without the cookie are refused.
func TestFlaskSessionLogin(t *testing.T) {
	t.Parallel()
	port := startFlask(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	resp, err := http.Get(base + "/todos")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /todos without a session: %d, want 401 (the app must refuse it)", resp.StatusCode)
	}

	plan, _ := flaskPlan(t, port, "")
	for _, client := range clients {
		opt := closedOpts(4, 300*time.Millisecond, 1500*time.Millisecond)
		opt.Client = client
		r := run(t, plan, base, opt)
		t.Logf("%s: %d iterations, %d succeeded, %d requests, %d failed", client, r.Iterations.Completed, r.Iterations.Succeeded, r.Requests.Total, r.Requests.Failed)
		if r.Iterations.Completed < 20 || r.Iterations.Succeeded != r.Iterations.Completed || r.Requests.Failed != 0 {
			t.Errorf("%s: iterations %+v requests %+v errors %+v; want ≥ 20 iterations, none failed", client, r.Iterations, r.Requests, r.Errors)
		}
		if len(r.Steps) != 2 {
			t.Errorf("%s: steps %+v, want add and list (the login is setup, not measured)", client, r.Steps)
		}
	}

	off, _ := flaskPlan(t, port, ", cookies: false")
	_, err = Run(context.Background(), off, base, closedOpts(2, 100*time.Millisecond, 300*time.Millisecond))
	var se *SetupError
	if !errors.As(err, &se) || se.Step != "login" || !strings.Contains(se.What, "400") {
		t.Errorf("with load.cookies: false: %v; want the login refused (400: its CSRF token is in the session the jar did not keep)", err)
	}
}
