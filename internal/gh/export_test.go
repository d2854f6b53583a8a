package gh

import (
	"context"
	"errors"
	"time"

	"github.com/google/go-github/v60/github"
)

// WithSleep replaces the wait between retries (tests make it instant).
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(cfg *config) { cfg.retry.sleep = sleep }
}

// WithClock replaces the clock used to turn X-RateLimit-Reset into a wait.
func WithClock(now func() time.Time) Option { return func(cfg *config) { cfg.retry.now = now } }

// IsRateLimit reports whether err is a primary or secondary rate limit that
// outlasted the retries.
func IsRateLimit(err error) bool {
	var rle *github.RateLimitError
	var are *github.AbuseRateLimitError
	if errors.As(err, &rle) || errors.As(err, &are) {
		return true
	}
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && isRateLimited(er.Response)
}
