package target

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// A dataset request's form is sent URL-encoded, as a step's is.
func TestResetRequestSendsItsForm(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.PostFormValue("token") != "a&b=c" || r.PostFormValue("all") != "yes" {
			http.Error(w, "form "+r.PostForm.Encode(), http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	reset := &config.Action{Request: &config.Request{Method: "POST", Path: "/reset", Form: map[string]string{"token": "a&b=c", "all": "yes"}}}
	if err := Reset(context.Background(), srv.Client(), srv.URL, reset, Children{}); err != nil {
		t.Fatal(err)
	}
}
