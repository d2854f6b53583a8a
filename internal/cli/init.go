package cli

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

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

// initYAML is the benchmark file init writes, a text/template with [[ ]]
// delimiters (the file's own templates use braces).
//
//go:embed init.yml
var initYAML string

var initTemplate = template.Must(template.New("init.yml").Delims("[[", "]]").Funcs(template.FuncMap{"q": strconv.Quote}).Parse(initYAML))

func (f initFlags) render() (string, error) {
	base, path, ready, err := f.target()
	if err != nil {
		return "", err
	}
	wd, _ := os.Getwd()
	name := cmp.Or(f.name, filepath.Base(wd), "service")
	var b strings.Builder
	err = initTemplate.Execute(&b, map[string]string{"Out": f.out, "Name": name, "Base": base, "Start": f.start, "Ready": ready, "Build": f.build, "Path": path})
	return b.String(), err
}

// target is what --url (or its default) names: the base URL, the step's
// path with its query, and the readiness path (--ready, else the step's).
func (f initFlags) target() (base, path, ready string, err error) {
	f.url = cmp.Or(f.url, map[bool]string{true: "http://127.0.0.1:8080/", false: "http://127.0.0.1:{{port}}/"}[f.start == ""])
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
