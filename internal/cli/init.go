package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

func init() {
	register("init", "write a commented tailgate.yml for a service: its URL and how to start it", cmdInit)
}

// initFlags are what tailgate init asks of the user's service.
type initFlags struct {
	url, start, build, ready, name, out string
	force                               bool
}

func cmdInit(_ context.Context, e env, args []string) error {
	fs := newFlagSet("init", `init --url http://127.0.0.1:{{port}}/items --start "./server --port {{port}}" [--build "go build -o server ."] [-o tailgate.yml]`, e.stderr)
	var f initFlags
	fs.StringVar(&f.url, "url", "", "the `URL` the benchmark GETs; its path is the scenario's step, {{port}} a free port tailgate picks at every start (default http://127.0.0.1:{{port}}/ with --start, else http://127.0.0.1:8080/)")
	fs.StringVar(&f.start, "start", "", "the shell `command` that starts the service, listening on {{port}} (empty: the service is started by someone else)")
	fs.StringVar(&f.build, "build", "", "the shell `command` that builds the service (tailgate ab runs it in each side's tree)")
	fs.StringVar(&f.ready, "ready", "", "the `path` polled until the service answers 200 (default: the URL's path)")
	fs.StringVar(&f.name, "name", "", "the benchmark's `name` (default: the current directory's name)")
	fs.StringVar(&f.out, "o", "tailgate.yml", "the `file` to write")
	fs.BoolVar(&f.force, "force", false, "replace the file if it exists")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	text, err := f.render()
	if err != nil {
		return err
	}
	// What init writes must be a benchmark tailgate accepts.
	if _, err := config.Parse(f.out, []byte(text)); err != nil {
		return usageErr("the benchmark these flags make does not validate: %v", err)
	}
	if _, err := os.Stat(f.out); err == nil && !f.force {
		return usageErr("%s exists: leave it, or write another file with -o, or replace it with --force", f.out)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return pipeline.Runtime.Wrap(err)
	}
	if err := atomicfile.Write(f.out, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
		return pipeline.Runtime.Wrap(err)
	}
	fmt.Fprintf(e.stdout, "wrote %s; next:\n  tailgate validate -c %s\n  tailgate run -c %s --runs 1 -o smoke.json\n  tailgate ab -c %s --base-ref main\n", f.out, f.out, f.out, f.out)
	return nil
}

// render writes the benchmark file the flags describe.
func (f initFlags) render() (string, error) {
	base, path, ready, err := f.target()
	if err != nil {
		return "", err
	}
	name := f.name
	if name == "" {
		wd, _ := os.Getwd()
		name = cmp.Or(filepath.Base(wd), "service")
	}
	q := strconv.Quote
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("# The benchmark tailgate runs against this service (written by tailgate init).")
	w("# Every key: docs/config.md of tailgate. Check it with: tailgate validate -c %s", f.out)
	w("name: %s                     # names the baseline file and the reports", q(name))
	w("target:")
	w("  url: %s   # {{port}}: a free port tailgate picks at every start", q(base))
	if f.start != "" {
		w("  start:")
		w("    command: %s   # tailgate starts it, waits until ready, stops it; no credentials reach it", q(f.start))
	} else {
		w("  # start: {command: \"./server --port {{port}}\"}   # let tailgate start and stop the service")
	}
	w("  ready: {path: %s}   # polled until it answers 200", q(ready))
	if f.build != "" {
		w("build: {command: %s}   # tailgate ab runs it in the base's tree and in yours", q(f.build))
	} else {
		w("# build: {command: \"go build -o server .\"}   # tailgate ab builds each side with it")
	}
	w("# dataset:   # the fixed state every run starts from: a reset before each run, and a check of it")
	w("#   reset: {request: {method: POST, path: /__reset, status: 204}}   # the service restores its seed data itself,")
	w("#     # while it keeps serving (a test-only route); or a command (sees TAILGATE_SIDE_DIR). Copying a file under")
	w("#     # the service fails when it reads its data only at start (SQLite opened once): docs/config.md, dataset")
	w("#   verify: {request: {path: /count}, expect: {count: 3}}")
	w("load:")
	w("  warmup: 1s       # each phase warms up unmeasured, then measures")
	w("  duration: 3s")
	w("  runs: 5          # samples for run and check; tailgate ab adds blocks until it decides")
	w("  phases:")
	w("    - {name: capacity, model: closed, vus: 4}    # users looping as fast as it answers: throughput")
	w("    - {name: latency, model: open, rate: 20/s}   # a fixed arrival rate: latency, dropped work")
	w("scenarios:")
	w("  - name: get")
	w("    steps:")
	w("      - {name: get, method: GET, path: %s, status: 200}", q(path))
	w("      # - {name: create, method: POST, path: /items, json: {title: \"t {{seq}}\"}, status: 201, save: {id: id}}")
	w("      # - {name: read, path: \"/items/{{.id}}\", expect: {title: \"t {{seq}}\"}}")
	w("ab:   # tailgate ab: base and head built, started and measured side by side, block by block, on this machine")
	w("  max_time: 4m   # a CI budget for the blocks (builds not counted); a clear verdict comes sooner")
	w("  # base: {ref: origin/main}   # or: tailgate ab --base-ref main (the Action uses the PR's base commit)")
	return b.String(), nil
}

// target is what --url (or its default) names: the base URL, the first
// step's path with its query, and the readiness path (--ready, else the
// step's path).
func (f initFlags) target() (base, path, ready string, err error) {
	if f.url == "" {
		f.url = "http://127.0.0.1:8080/"
		if f.start != "" {
			f.url = "http://127.0.0.1:{{port}}/"
		}
	}
	u, err := url.Parse(strings.ReplaceAll(f.url, "{{port}}", "1"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", "", usageErr("--url: want an http URL such as http://127.0.0.1:{{port}}/items, got %q", f.url)
	}
	path = cmp.Or(u.EscapedPath(), "/")
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return u.Scheme + "://" + hostOf(f.url), path, cmp.Or(f.ready, strings.SplitN(path, "?", 2)[0]), nil
}

// hostOf is the host part of an http URL as written (with {{port}}).
func hostOf(raw string) string {
	rest := raw[strings.Index(raw, "://")+3:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		return rest[:i]
	}
	return rest
}
