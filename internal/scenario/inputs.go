package scenario

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/tailgate-ci/tailgate/internal/config"
)

type Stage int

// Setup stages, in the order they run: once per run, then once per
// virtual user (or open-model worker) before its first iteration.
const (
	SetupRun Stage = iota
	SetupVU
	stages
)

func (s Stage) String() string { return [stages]string{"setup.run", "setup.vu"}[s] }

// scope is what a step's templates may read: earlier saves, env and the feed.
type scope struct {
	saved   map[string]bool
	savedBy string // where saved values come from, for messages
	stage   Stage
	inStage bool // the steps are setup steps of stage
	env     *envRefs
	feed    *feedRows // nil: no feed
}

// envRefs looks up the variables templates read and records their values
// in the plan, telling mask (Inputs.Mask) each value once.
type envRefs struct {
	getenv   func(string) string
	withheld func(string) bool
	mask     func(string)
	plan     *Plan
}

func (r *envRefs) lookup(name string) error {
	if _, ok := r.plan.env[name]; ok {
		return nil
	}
	if r.withheld != nil && r.withheld(name) {
		return fmt.Errorf("{{env %q}}: %s is a GitHub or Actions credential, which tailgate gives neither to its child processes nor to requests unless pass_env names it", name, name)
	}
	v := ""
	if r.getenv != nil {
		v = r.getenv(name)
	}
	if v == "" {
		return fmt.Errorf("{{env %q}}: %s is not set (or empty) in tailgate's environment", name, name)
	}
	r.plan.env[name] = v
	if r.mask != nil {
		r.mask(v)
	}
	return nil
}

type feedRows struct {
	file         string
	columns      map[string]int
	names        []string
	rows         [][]string
	perIteration bool
	fail         bool // at_end: fail; else the rows wrap around
}

func newFeedRows(f *config.Feed) *feedRows {
	fr := &feedRows{file: f.File, columns: map[string]int{}, names: f.Columns, rows: f.Rows,
		perIteration: f.Per == config.FeedPerIteration, fail: f.AtEnd == config.FeedFail}
	for i, c := range f.Columns {
		fr.columns[c] = i
	}
	return fr
}

// row is row n of the feed, or an error when at_end: fail and the rows
// have run out; what names the taker ("iteration 40").
func (f *feedRows) row(n uint64, what string) ([]string, error) {
	if f.fail && n >= uint64(len(f.rows)) {
		return nil, fmt.Errorf("feed %s ran out of rows: it has %d and %s needs row %d (at_end: fail); add rows or use at_end: wrap", f.file, len(f.rows), what, n+1)
	}
	return f.rows[n%uint64(len(f.rows))], nil
}

// compileSetup compiles the setup stages; what their steps save, all may read.
func (p *Plan) compileSetup(s *config.Setup, refs *envRefs) (map[string]bool, error) {
	saved := map[string]bool{}
	if s == nil {
		return saved, nil
	}
	for st, steps := range [stages][]config.Step{SetupRun: s.Run, SetupVU: s.VU} {
		if len(steps) == 0 {
			continue
		}
		sc := &scope{saved: saved, savedBy: "of setup", stage: Stage(st), inStage: true, env: refs, feed: p.feed}
		cs, err := compileScenario(Stage(st).String(), steps, sc, nil, nil)
		if err != nil {
			return nil, err
		}
		p.setup[st] = cs
	}
	return saved, nil
}

// checkInputs checks the template's calls of env and feed: one quoted
// name, set (env) or a column of a feed that has a row where it runs.
func (sc *scope) checkInputs(root parse.Node) error {
	var err error
	walk(root, func(n parse.Node) {
		cmd, ok := n.(*parse.CommandNode)
		if !ok || err != nil {
			return
		}
		for i, arg := range cmd.Args {
			id, ok := arg.(*parse.IdentifierNode)
			if p := sc.env.plan; ok && sc.inStage && sc.stage == SetupVU {
				p.setupByVU = p.setupByVU || id.Ident == "vu"
				p.setupByRow = p.setupByRow || id.Ident == "feed"
			}
			if !ok || (id.Ident != "env" && id.Ident != "feed") {
				continue
			}
			name, ok := quotedName(cmd, i)
			if !ok {
				err = fmt.Errorf("%s takes one quoted name, as in {{%s %q}}", id.Ident, id.Ident, map[string]string{"env": "API_TOKEN", "feed": "email"}[id.Ident])
				return
			}
			if id.Ident == "env" {
				err = sc.env.lookup(name)
			} else {
				err = sc.checkFeed(name)
			}
		}
	})
	return err
}

// quotedName is the string literal of a call `name "arg"` at cmd.Args[i].
func quotedName(cmd *parse.CommandNode, i int) (string, bool) {
	if s, ok := cmd.Args[len(cmd.Args)-1].(*parse.StringNode); ok && i == 0 && len(cmd.Args) == 2 {
		return s.Text, true
	}
	return "", false
}

func (sc *scope) checkFeed(column string) error {
	switch {
	case sc.feed == nil:
		return fmt.Errorf("{{feed %q}}: there is no feed; add a feed: {file: …} section", column)
	case sc.inStage && sc.stage == SetupRun:
		return fmt.Errorf("{{feed %q}}: setup.run runs once per run, for no virtual user, so it has no row of the feed", column)
	case sc.inStage && sc.feed.perIteration:
		return fmt.Errorf("{{feed %q}}: the feed gives a row to each iteration (per: iteration), so setup.vu has none; use per: vu", column)
	case !slices.Contains(sc.feed.names, column):
		return fmt.Errorf("{{feed %q}}: %s has no column %q (columns: %s)", column, sc.feed.file, column, strings.Join(sc.feed.names, ", "))
	}
	return nil
}

// mask is written in place of a secret; minKeptSecret is the length from
// which a value setup saved is masked too (tokens are long, ids short).
const (
	mask          = "***"
	minKeptSecret = 8
)

// maskForms returns the ways the values may appear in a message (as they
// are, escaped in JSON, Go strings or URLs), longest first so that a value
// inside another is not masked half.
func maskForms(values []string) []string {
	var out []string
	for _, v := range values {
		if v == "" {
			continue
		}
		j, _ := json.Marshal(v)
		out = append(out, v, string(j[1:len(j)-1]), strings.Trim(strconv.Quote(v), `"`), url.QueryEscape(v), url.PathEscape(v))
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return slices.Compact(out)
}

func newMasker(forms []string) *strings.Replacer {
	if len(forms) == 0 {
		return nil
	}
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, mask)
	}
	return strings.NewReplacer(pairs...)
}
