package ci

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/tailgate-ci/tailgate/internal/ci/mdtrunc"
)

// Outputs is every output the action sets; the output tag is its name.
type Outputs struct {
	Verdict     string `output:"verdict"`     // pass, regression, inconclusive; error when tailgate could not judge
	Regressions int    `output:"regressions"` // the number of regressed metrics
	ReportPath  string `output:"report_path"`
	HTMLPath    string `output:"html_path"`   // the HTML report
	CommentURL  string `output:"comment_url"` // empty when no comment was posted
	// TargetLog is the started targets' log files, one a line (base, then
	// head), as actions/upload-artifact's path takes them.
	TargetLog string `output:"target_log"`
}

// OutputCommentURL is the output the PR comment's link is set in.
const OutputCommentURL = "comment_url"

// SummaryLimit is GitHub's per-step job summary limit; above it the runner
// drops the whole summary.
const SummaryLimit = 1024 * 1024

// ErrNotInStep reports that a file command's variable (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY) is unset: the process does not run in an Actions step.
var ErrNotInStep = errors.New("not running in a GitHub Actions step")

// Runtime issues workflow commands through go-githubactions and writes the
// file commands itself, as go-githubactions v1.3.0 ends every output with
// one fixed delimiter (see heredoc). It never panics: the first failed
// write to the log is kept for Err.
type Runtime struct {
	action *githubactions.Action
	getenv func(string) string
	err    error
	masked map[string]bool // what AddMask registered: each once
	// After Seal: the command files as tailgate left them, and those
	// another process changed.
	sealed   []commandFile
	tampered []string
}

// NewRuntime returns a Runtime that writes workflow commands to w (through
// a Guard's privileged path when w is one) and finds the file commands'
// paths through getenv.
func NewRuntime(w io.Writer, getenv func(string) string) *Runtime {
	return &Runtime{
		action: githubactions.New(githubactions.WithWriter(commandWriter(w)), githubactions.WithGetenv(getenv)),
		getenv: getenv,
		masked: map[string]bool{},
	}
}

// Err returns the first error writing a workflow command to the log.
func (r *Runtime) Err() error { return r.err }

// Errorf, Warningf and Noticef emit an annotation with a title.
func (r *Runtime) Errorf(title, format string, args ...any) {
	r.command(func() { r.titled(title).Errorf(format, args...) })
}

func (r *Runtime) Warningf(title, format string, args ...any) {
	r.command(func() { r.titled(title).Warningf(format, args...) })
}

func (r *Runtime) Noticef(title, format string, args ...any) {
	r.command(func() { r.titled(title).Noticef(format, args...) })
}

// Group starts a collapsible group in the log; EndGroup ends it. Groups do
// not nest.
func (r *Runtime) Group(title string) { r.command(func() { r.action.Group(title) }) }

func (r *Runtime) EndGroup() { r.command(r.action.EndGroup) }

// AddMask makes the runner replace secret with *** in the log from now on,
// each line once (the runner masks line by line). Not safe for concurrent
// use.
func (r *Runtime) AddMask(secret string) {
	for _, line := range strings.Split(secret, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || r.masked[line] {
			continue
		}
		r.masked[line] = true
		r.command(func() { r.action.AddMask(line) })
	}
}

func (r *Runtime) titled(title string) *githubactions.Action {
	if title == "" {
		return r.action
	}
	return r.action.WithFieldsMap(map[string]string{"title": title})
}

// command runs a go-githubactions call that panics on a write error.
func (r *Runtime) command(f func()) {
	defer func() {
		if p := recover(); p != nil && r.err == nil {
			err, ok := p.(error)
			if !ok {
				err = fmt.Errorf("%v", p)
			}
			r.err = fmt.Errorf("write a workflow command: %w", err)
		}
	}()
	f()
}

// SetOutput sets one step output, in the multi-line form with a random
// delimiter. It fails when GITHUB_OUTPUT is unset or the name is not one.
func (r *Runtime) SetOutput(name, value string) error {
	if r.getenv("GITHUB_OUTPUT") == "" {
		return fmt.Errorf("set output %s: GITHUB_OUTPUT is unset: %w", name, ErrNotInStep)
	}
	if name == "" || strings.ContainsAny(name, "=<\r\n") {
		return fmt.Errorf("set output: %q is not a valid output name", name)
	}
	entry, err := heredoc(name, value)
	if err == nil {
		err = r.appendCommandFile("GITHUB_OUTPUT", []byte(entry))
	}
	if err != nil {
		return fmt.Errorf("set output %s: %w", name, err)
	}
	return nil
}

func (r *Runtime) WriteOutputs(o Outputs) error {
	v := reflect.ValueOf(o)
	var errs []error
	for i := range v.NumField() {
		name := v.Type().Field(i).Tag.Get("output")
		errs = append(errs, r.SetOutput(name, fmt.Sprint(v.Field(i).Interface())))
	}
	return errors.Join(errs...)
}

// AddStepSummary appends markdown to the job summary. Markdown that would
// take the step's summary past SummaryLimit is cut (see mdtrunc.Fit) with a
// note saying so, and truncated is true.
func (r *Runtime) AddStepSummary(markdown string) (truncated bool, err error) {
	path := r.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return false, fmt.Errorf("write the job summary: GITHUB_STEP_SUMMARY is unset: %w", ErrNotInStep)
	}
	if err := r.checkFiles(); err != nil { // what another process appended is no part of the budget
		return false, fmt.Errorf("write the job summary: %w", err)
	}
	var used int64
	if st, err := os.Stat(path); err == nil {
		used = st.Size()
	}
	budget := SummaryLimit - int(used) - len("\n") // each write ends with a line break
	note := fmt.Sprintf("> [!WARNING]\n> This summary was cut to stay under GitHub's 1 MiB job summary limit "+
		"(it was %d bytes); the full report is in the report file.", len(markdown))
	markdown, truncated = mdtrunc.Fit(markdown, budget, note)
	if err := r.appendCommandFile("GITHUB_STEP_SUMMARY", []byte(markdown+"\n")); err != nil {
		return truncated, fmt.Errorf("write the job summary: %w", err)
	}
	return truncated, nil
}
