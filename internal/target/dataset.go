package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/jsonmatch"
)

// Reset puts the target back to its dataset with a request (answering its
// status, by default any 2xx) or a command (exiting 0, with
// TAILGATE_TARGET_URL set). A nil action does nothing.
func Reset(ctx context.Context, client *http.Client, baseURL string, a *config.Action, ch Children) error {
	if a == nil {
		return nil
	}
	_, saw, err := perform(ctx, client, baseURL, a, ch)
	return stepError(StepReset, saw, err, a, ch)
}

// stepError is nil, or the failed step, saying what a sealed side's failed
// dataset command could see.
func stepError(step, saw string, err error, a *config.Action, ch Children) error {
	if err == nil {
		return nil
	}
	if a.Command != nil && ch.Seal != nil {
		err = fmt.Errorf("%w (it ran sealed, in the %s side's own environment: one TMPDIR and /dev/shm shared by all of that side's commands for the whole job, and a layer of its own over $HOME, /tmp and the writable PATH directories; it sees what that side's build, start and earlier commands wrote there and what was there when the job started, never what the other side wrote: keep the dataset under $TMPDIR or the side's tree, $TAILGATE_SIDE_DIR)", err, ch.Seal.Side)
	}
	return &StepError{Step: step, Saw: saw, Err: err}
}

// Verify checks the dataset after a reset as Reset acts, the answer or
// the command's stdout holding the JSON values of c.Expect (e.g.
// {"count": 3}) and matching c.Regex. A nil check does nothing.
func Verify(ctx context.Context, client *http.Client, baseURL string, c *config.Check, ch Children) error {
	if c == nil {
		return nil
	}
	out, saw, err := perform(ctx, client, baseURL, &c.Action, ch)
	if err == nil && c.Command != nil && (len(c.Expect) > 0 || c.Regex != "") {
		saw += " → " + snippet(out)
	}
	if err == nil {
		err = jsonmatch.Match(out, c.Expect)
	}
	if err == nil && c.Regex != "" {
		if re, rerr := regexp.Compile(c.Regex); rerr != nil || !re.Match(out) { // validate refuses a bad one
			err = fmt.Errorf("the answer does not match regex %q", c.Regex)
		}
	}
	return stepError(StepVerify, saw, err, &c.Action, ch)
}

// perform sends the request or runs the command: the answer's body (the
// command's stdout), what it shows of it, and whether it failed.
func perform(ctx context.Context, client *http.Client, baseURL string, a *config.Action, ch Children) ([]byte, string, error) {
	switch {
	case a.Request != nil:
		ans, err := send(ctx, client, baseURL, a.Request)
		if err == nil {
			err = checkStatus(ans.Status, a.Request.Status)
		}
		return ans.Body, ans.Saw, err
	case a.Command != nil:
		return runCommand(ctx, a.Command, ch.With(TargetURLEnv+"="+baseURL))
	}
	return nil, "", errors.New("neither a request nor a command is set")
}
