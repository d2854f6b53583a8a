// Package gh owns tailgate's use of the GitHub REST API: one sticky pull
// request comment per benchmark, found by a hidden marker and by its author,
// created once and edited on later pushes. It is the only package that
// imports go-github; retries on rate limits and server errors live in its
// HTTP transport.
package gh

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/tailgate-ci/tailgate/internal/clock"
)

// Client talks to one GitHub API (github.com, GHES, or a test fake).
type Client struct {
	api    *github.Client
	author string // the login whose comments are ours; resolved once
}

type config struct {
	httpClient *http.Client
	retry      retryPolicy
}

type Option func(*config)

// WithHTTPClient sets the HTTP client whose transport carries the requests.
// A nil client is ignored.
func WithHTTPClient(c *http.Client) Option {
	return func(cfg *config) {
		if c != nil {
			cfg.httpClient = c
		}
	}
}

// WithRetries sets the attempts per request (at least 1) and the longest
// wait the client accepts between them; a rate limit that resets later than
// maxWait is not waited for.
func WithRetries(attempts int, maxWait time.Duration) Option {
	return func(cfg *config) { cfg.retry.attempts, cfg.retry.maxWait = max(attempts, 1), maxWait }
}

// ActionsBotLogin is the author of comments made with an Actions GITHUB_TOKEN.
const ActionsBotLogin = "github-actions[bot]"

// New returns a client for the REST API at apiURL (GITHUB_API_URL: e.g.
// https://api.github.com, or https://HOST/api/v3 on GitHub Enterprise Server),
// authenticated with token.
func New(token, apiURL string, opts ...Option) (*Client, error) {
	if token == "" {
		return nil, errors.New("no GitHub token: set the github_token input (it defaults to github.token)")
	}
	base, err := baseURL(apiURL)
	if err != nil {
		return nil, err
	}
	cfg := config{httpClient: &http.Client{Timeout: 30 * time.Second}, retry: retryPolicy{attempts: 3, backoff: time.Second, maxWait: 10 * time.Second, sleep: clock.Sleep, now: time.Now}}
	for _, o := range opts {
		o(&cfg)
	}
	hc := *cfg.httpClient // go-github copies it too; never mutate the caller's
	hc.Transport = &retryTransport{next: cmp.Or[http.RoundTripper](cfg.httpClient.Transport, http.DefaultTransport), policy: cfg.retry}
	api := github.NewClient(&hc).WithAuthToken(token)
	api.BaseURL = base
	api.UploadURL = base
	return &Client{api: api}, nil
}

// baseURL parses the API URL and gives it the trailing slash go-github needs.
// It does not append /api/v3: GITHUB_API_URL already has it on GHES.
func baseURL(apiURL string) (*url.URL, error) {
	if apiURL == "" {
		apiURL = "https://api.github.com"
	}
	u, err := url.Parse(strings.TrimRight(apiURL, "/") + "/")
	if err != nil {
		return nil, fmt.Errorf("GitHub API URL %q: %w", apiURL, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("GitHub API URL %q is not an http(s) URL like https://api.github.com", apiURL)
	}
	return u, nil
}

// authorLogin returns the login whose comments are ours. A GITHUB_TOKEN from
// Actions cannot read GET /user (403), and its comments are authored by
// github-actions[bot]; a personal token's user is whoever GET /user says.
func (c *Client) authorLogin(ctx context.Context) (string, error) {
	if c.author != "" {
		return c.author, nil
	}
	user, _, err := c.api.Users.Get(ctx, "")
	switch {
	case err == nil && user.GetLogin() != "":
		c.author = user.GetLogin()
	case err == nil || IsPermission(err):
		c.author = ActionsBotLogin
	default:
		return "", fmt.Errorf("find the token's user (GET /user): %w", described(err))
	}
	return c.author, nil
}
