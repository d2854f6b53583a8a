package load

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// A worker's timeout restarts with each request: requests that each take
// well under it never time out however many run back to back, and after
// one overruns, the next ones are bounded afresh, not failed at once.
func TestEachRequestGetsItsOwnTimeout(t *testing.T) {
	t.Parallel()
	forEachClient(t, func(t *testing.T, client string) {
		var n atomic.Int64
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			if k := n.Add(1); k == 1 || k == 3 {
				<-r.Context().Done() // the client gives up on requests 1 and 3
				return
			}
			time.Sleep(20 * time.Millisecond)
		})
		// The timeout is far above a 20 ms answer even on a loaded
		// machine, so only the two stalled requests can time out.
		opt := closedOpts(1, 0, 1500*time.Millisecond)
		opt.RequestTimeout, opt.Client = 400*time.Millisecond, client
		r := run(t, compile(t, 1, oneStep("a", "/")), srv.URL, opt)
		if len(r.Errors) != 1 || r.Errors[0].Class != result.ErrTimeout || r.Errors[0].Count != 2 {
			t.Fatalf("errors %+v, want exactly the 2 stalled requests as timeouts", r.Errors)
		}
		it := r.Iterations
		// 2 × 400ms of timeouts leave 700ms of the window for 20ms requests.
		if it.Completed < 5 || it.Succeeded != it.Completed-2 || r.Requests.Total != it.Completed {
			t.Errorf("iterations %+v, requests %+v; want all but the 2 stalled ones to succeed, and at least 5 in all", it, r.Requests)
		}
	})
}

// The engine sends through its Transport directly; a base URL with
// credentials must still reach the target as basic auth.
func TestCredentialsInTheURLBecomeBasicAuth(t *testing.T) {
	t.Parallel()
	forEachClient(t, func(t *testing.T, client string) {
		var bad atomic.Int64
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != "gate" || p != "s3cret" {
				bad.Add(1)
				w.WriteHeader(http.StatusUnauthorized)
			}
		})
		base := strings.Replace(srv.URL, "http://", "http://gate:s3cret@", 1)
		opt := closedOpts(2, 0, 100*time.Millisecond)
		opt.Client = client
		r := run(t, compile(t, 1, oneStep("a", "/")), base, opt)
		if r.Requests.Total == 0 || r.Requests.Failed != 0 || bad.Load() != 0 {
			t.Errorf("requests %+v, %d without the credentials; want all sent with basic auth", r.Requests, bad.Load())
		}
	})
}
