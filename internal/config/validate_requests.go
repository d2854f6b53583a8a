package config

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/printable"
)

func validateCheck(v *Check, path string, c *collector) {
	if v == nil {
		return
	}
	validateAction(&v.Action, path, c)
	c.addIf(v.Command != nil && len(v.Expect) > 0, path+".expect", "expect checks a JSON response and needs a request; a command passes by exiting 0 (regex: checks any answer's text, e.g. XML)")
	_, err := regexp.Compile(v.Regex)
	c.addIf(err != nil, path+".regex", "invalid regular expression %q: %v", v.Regex, err)
}

func validateAction(a *Action, path string, c *collector) {
	switch {
	case a.Request == nil && a.Command == nil:
		c.add(path, "needs a request or a command, e.g. request: {method: POST, path: /reset}")
	case a.Request != nil && a.Command != nil:
		c.add(path+".command", "give a request or a command, not both")
	case a.Request != nil:
		validateRequest(a.Request, path+".request", false, c)
	case a.Command.IsZero():
		c.add(path+".command", "required: the command to run")
	}
}

func validateDrain(d *Drain, c *collector) {
	validateRequest(&d.Probe, "drain.probe", false, c)
	c.addIf(len(d.Until) == 0, "drain.until", "required: the JSON values that mean idle, e.g. {pending: 0}")
	checkPositive(d.Timeout, "drain.timeout", c)
	checkPositive(d.Interval, "drain.interval", c)
	c.addIf(d.Timeout > 0 && d.Quiet >= d.Timeout, "drain.quiet", "quiet (%s) must be shorter than timeout (%s), or the drain can never succeed", d.Quiet, d.Timeout)
}

func validateScenarios(ss []Scenario, c *collector) {
	if len(ss) == 0 {
		c.add("scenarios", "required: at least one scenario with steps")
		return
	}
	names := map[string]int{}
	total := 0
	for i := range ss {
		path, s := joinIndex("scenarios", i), &ss[i]
		switch j, dup := names[s.Name]; {
		case s.Name == "":
			c.add(path+".name", "must not be empty")
		case !checkName(s.Name, path+".name", "scenario name", c):
		case dup:
			c.add(path+".name", "scenario name %q is already used by scenarios[%d]", s.Name, j)
		default:
			names[s.Name] = i
		}
		c.addIf(s.Weight < 0, path+".weight", "must be 0 or more, got %d", s.Weight)
		total += max(s.Weight, 0)
		validateSteps(s.Steps, path+".steps", c)
	}
	c.addIf(total == 0, "scenarios", "the weights add up to 0: at least one scenario needs a positive weight")
}

func validateSteps(steps []Step, path string, c *collector) {
	if len(steps) == 0 {
		c.add(path, "required: at least one step, e.g. - {method: GET, path: /health}")
		return
	}
	names := map[string]int{}
	for j := range steps {
		st, stepPath := &steps[j], joinIndex(path, j)
		validateRequest(&st.Request, stepPath, true, c)
		checkStepName(st, stepPath, names, j, c)
		checkSave(st.Save, stepPath+".save", c)
		checkExpect(st.Expect, stepPath+".expect", c)
	}
}

// checkStepName requires step names unique within their scenario (names).
func checkStepName(st *Step, stepPath string, names map[string]int, j int, c *collector) {
	switch k, dup := names[st.Name]; {
	case st.Path == "" && !c.given(stepPath+".name"): // the default name of a step without a path says nothing new
	case c.given(stepPath+".name") && !checkName(st.Name, stepPath+".name", "step name", c):
	case dup:
		c.add(stepPath+".name", "step name %q is already used by step %d of this scenario: give each step a distinct name", st.Name, k)
	default:
		names[st.Name] = j
	}
}

// checkSave requires variable names usable as {{.name}} and a source
// that can be found: a JSON path, or a header or cookie name.
func checkSave(save map[string]SaveFrom, path string, c *collector) {
	for _, v := range slices.Sorted(maps.Keys(save)) {
		key := joinKey(path, v)
		if !identifier.MatchString(v) {
			c.addKey(key, "invalid variable name %q: use letters, digits and '_', not starting with a digit (a saved value is used as {{.name}})", v)
			continue
		}
		switch kind, name := save[v].Source(); {
		case kind == SaveJSON && name == "":
			c.add(key, "needs a JSON path in the response, e.g. id or items.0.id, or {header: NAME} or {cookie: NAME}")
		case kind != SaveJSON && kind != SaveBody && !isToken(name):
			c.add(key, "%s name %q is not a valid %s name: letters, digits and !#$%%&'*+-.^_`|~ only", kind, name, kind)
		}
		if re := save[v].Regex; re != "" {
			_, err := CompileSaveRegex(re)
			c.addIf(err != nil, joinKey(key, saveRegex), "invalid regular expression %q: %v", re, err)
		}
	}
}

// ExpectHeader is the key of a step's expect whose mapping holds header
// field → a regular expression its value must match ({header: {Location:
// '^/$'}}); any other key is a JSON path.
const ExpectHeader = "header"

// checkExpect checks a step's expected values that are templates
// ({"slug": "{{.slug}}"}) as the request's templates are checked, and its
// header expectations: header names, and regular expressions that compile
// (they are not templates).
func checkExpect(expect map[string]any, path string, c *collector) {
	for _, k := range slices.Sorted(maps.Keys(expect)) {
		if s, ok := expect[k].(string); ok {
			checkTemplate(s, joinKey(path, k), c)
		}
	}
	hs, _ := expect[ExpectHeader].(map[string]any)
	for _, h := range slices.Sorted(maps.Keys(hs)) {
		key := joinKey(joinKey(path, ExpectHeader), h)
		re, ok := hs[h].(string)
		switch {
		case !isToken(h):
			c.addKey(key, "header name %q is not a valid header name: letters, digits and !#$%%&'*+-.^_`|~ only", h)
		case !ok:
			c.add(key, "expected a regular expression the header's value must match, such as '^/$', got %v", hs[h])
		case strings.Contains(re, "{{"):
			c.add(key, "a header expectation is a regular expression, not a template: %q", re)
		default:
			_, err := regexp.Compile(re)
			c.addIf(err != nil, key, "invalid regular expression %q: %v", re, err)
		}
	}
}

// checkName refuses a name that cannot be shown as it is in the job log,
// PR comments and HTML reports (printable.Bad).
func checkName(name, key, what string, c *collector) bool {
	if err := printable.Check(name); err != nil {
		c.add(key, "%s %q %v", what, name, err)
		return false
	}
	if err := printable.Long(name, printable.MaxName); err != nil {
		c.add(key, "%s %.40q… %v", what, name, err)
		return false
	}
	return true
}

// identifier is what text/template accepts after a dot ({{.name}});
// methodPattern an HTTP method as users write them.
var (
	identifier    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	methodPattern = regexp.MustCompile(`^[A-Z]+$`)
)

// validateRequest checks a request; rendered says its templates are
// rendered (a step's), so its path may begin with one.
func validateRequest(r *Request, path string, rendered bool, c *collector) {
	checkPath(r.Path, joinKey(path, "path"), rendered, c)
	c.addIf(!methodPattern.MatchString(r.Method), joinKey(path, "method"), "invalid method %q: expected GET, POST, PUT, PATCH, DELETE, …", r.Method)
	if given := slices.DeleteFunc([]string{"json", "body", "form"}, func(k string) bool {
		return k == "json" && r.JSON == nil || k == "body" && r.Body == "" || k == "form" && r.Form == nil
	}); len(given) > 1 {
		c.add(joinKey(path, given[len(given)-1]), "give one of json, body and form, not %s: each is the whole request body", strings.Join(given, " and "))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Form)) {
		checkTemplate(r.Form[k], joinKey(joinKey(path, "form"), k), c)
	}
	if c.given(joinKey(path, "status")) {
		checkStatus(r.Status, joinKey(path, "status"), c)
	}
	for _, h := range slices.Sorted(maps.Keys(r.Headers)) {
		checkTemplate(r.Headers[h], joinKey(joinKey(path, "headers"), h), c)
	}
	checkTemplate(r.Body, joinKey(path, "body"), c)
	checkJSONTemplates(r.JSON, joinKey(path, "json"), c)
}

// checkPath requires a path starting with "/", or, where the path is
// rendered (rendered: a step's), with a template (a link saved from an
// answer: the request checks that it renders a "/", so no value can name
// another host); and well-formed templates.
func checkPath(p, key string, rendered bool, c *collector) {
	switch {
	case p == "":
		c.add(key, "required: a path starting with /, e.g. /items")
	case !strings.HasPrefix(p, "/") && !(rendered && strings.HasPrefix(p, "{{")):
		c.add(key, "path %q must start with /: the target URL gives scheme, host and port", p)
	case printable.Check(p) != nil:
		r, pos, _ := printable.Bad(p)
		c.add(key, "path %q contains %s at character %d: percent-encode it (a step without a name is named after its path)", p, printable.Describe(r), pos+1)
	default:
		checkTemplate(p, key, c)
	}
}

func checkJSONTemplates(v any, key string, c *collector) {
	switch x := v.(type) {
	case string:
		checkTemplate(x, key, c)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			checkJSONTemplates(x[k], joinKey(key, k), c)
		}
	case []any:
		for i, item := range x {
			checkJSONTemplates(item, joinIndex(key, i), c)
		}
	}
}

// checkTemplate catches an unclosed {{; package scenario runs the template.
func checkTemplate(s, key string, c *collector) {
	rest := s
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			return
		}
		rest = rest[open+2:]
		end := strings.Index(rest, "}}")
		if end < 0 || strings.Contains(rest[:end], "{{") {
			c.add(key, "unclosed {{ in %q: templates look like {{.id}} or {{randInt 1 9}}", s)
			return
		}
		rest = rest[end+2:]
	}
}
