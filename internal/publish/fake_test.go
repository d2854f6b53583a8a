package publish

import (
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gh"
	"github.com/tailgate-ci/tailgate/internal/gh/ghtest"
)

// fakeGitHub is ghtest's fake GitHub API as these tests use it: an Actions
// token (GET /user is 403, so our comments are github-actions[bot]'s) on
// PR 7 of tailgate-ci/shop. The test passes its URL to gh.New: nothing
// reaches it through the environment.
type fakeGitHub struct {
	*ghtest.Server
	t *testing.T
}

const (
	fakeToken = "ghs_publishTEST"
	fakePR    = 7
)

func newFakeGitHub(t *testing.T, opts ...ghtest.Option) fakeGitHub {
	opts = append([]ghtest.Option{ghtest.Token(fakeToken), ghtest.Repo("tailgate-ci/shop")}, opts...)
	return fakeGitHub{ghtest.New(t, opts...), t}
}

// client is a gh client for the fake, with one attempt per request.
func (f fakeGitHub) client() *gh.Client {
	f.t.Helper()
	c, err := gh.New(fakeToken, f.URL(), gh.WithHTTPClient(f.HTTPClient()), gh.WithRetries(1, 0))
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

func (f fakeGitHub) seed(login, body string) { f.Seed(fakePR, login, body) }

// count counts the calls with method.
func (f fakeGitHub) count(method string) int { return f.Count(method) }

// ours returns the bodies of our comments.
func (f fakeGitHub) ours() []string {
	var out []string
	for _, c := range f.Authored(fakePR) {
		out = append(out, c.Body)
	}
	return out
}
