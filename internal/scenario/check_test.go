package scenario

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// checkStep sends step 0 of a one-step plan to a server answering status
// and body, and returns the outcome of Check.
func checkStep(t *testing.T, step config.Step, status int, body string) (*Executor, *Failure, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	x, req := firstRequest(t, mustCompile(t, step), srv.URL)
	resp := send(t, srv, req)
	defer resp.Body.Close()
	f, err := x.Check(0, Response{Status: resp.StatusCode, Body: resp.Body})
	return x, f, err
}

func TestCheckStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		want   int
		status int
		body   string
		msg    string // "" = pass
	}{
		{"any 2xx passes 204", 0, 204, "", ""},
		{"default rejects 409 with the body's first line", 0, 409, "INVALID ACTION\nstack trace", "409 INVALID ACTION"},
		{"empty body uses the status text", 0, 500, "", "500 Internal Server Error"},
		{"explicit status must match", 201, 200, "ok", "200 ok"},
		{"explicit non-2xx status passes", 404, 404, "gone", ""},
		{"redirect is not success", 0, 302, "", "302 Found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, f, err := checkStep(t, config.Step{Name: "s", Request: config.Request{Status: tt.want}}, tt.status, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.msg == "" && f != nil:
				t.Errorf("failure %q, want pass", f.Message())
			case tt.msg != "" && f == nil:
				t.Errorf("passed, want failure %q", tt.msg)
			case tt.msg != "" && (f.Kind != StatusMismatch || f.Message() != tt.msg):
				t.Errorf("failure kind %d %q, want StatusMismatch %q", f.Kind, f.Message(), tt.msg)
			}
		})
	}
}

func TestCheckExpectAndSave(t *testing.T) {
	t.Parallel()
	step := config.Step{Name: "s",
		Expect: map[string]any{"state": "open", "n": 3},
		Save:   map[string]config.SaveFrom{"id": {Name: "id"}, "tags": {Name: "tags"}},
	}
	x, f, err := checkStep(t, step, 200, `{"id":"a-1","state":"open","n":3.0,"tags":["x"]}`)
	if err != nil || f != nil {
		t.Fatalf("Check = %v, %v; want pass", f, err)
	}
	if x.vars["id"] != "a-1" || x.vars["tags"] != `["x"]` {
		t.Errorf("saved %v, want id=a-1 and tags as JSON text", x.vars)
	}

	_, f, _ = checkStep(t, step, 200, `{"id":"a-1","state":"closed","n":3}`)
	if f == nil || f.Kind != ExpectationFailed || !strings.Contains(f.Message(), `state = "closed", want open`) {
		t.Errorf("mismatch: failure %+v, want ExpectationFailed naming state", f)
	}
	_, f, _ = checkStep(t, step, 200, `{"state":"open","n":3}`)
	if f == nil || f.Kind != ExpectationFailed || !strings.Contains(f.Message(), "save id: id missing") {
		t.Errorf("missing save path: failure %+v, want ExpectationFailed naming id", f)
	}
	_, f, _ = checkStep(t, step, 200, `not json`)
	if f == nil || f.Kind != ExpectationFailed {
		t.Errorf("non-JSON body: failure %+v, want ExpectationFailed", f)
	}
}

func TestCheckBoundsTheBodyItReads(t *testing.T) {
	t.Parallel()
	big := `{"id":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	_, f, err := checkStep(t, config.Step{Name: "s", Save: map[string]config.SaveFrom{"id": {Name: "id"}}}, 200, big)
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || !strings.Contains(f.Message(), "larger than") {
		t.Fatalf("failure %+v, want the body limit explained", f)
	}
}

func TestExpectValuesMayUseSavedValues(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/items/")
		if id == "" || r.URL.Path == "/items" {
			id = "a-7"
		}
		if r.URL.Query().Get("lie") != "" {
			id = "other"
		}
		_, _ = w.Write([]byte(`{"id":"` + id + `","n":2}`))
	}))
	defer srv.Close()
	p := mustCompile(t,
		config.Step{Name: "create", Request: config.Request{Path: "/items"}, Save: map[string]config.SaveFrom{"id": {Name: "id"}}},
		config.Step{Name: "get", Request: config.Request{Path: "/items/{{.id}}"}, Expect: map[string]any{"id": "{{.id}}", "n": 2}},
		config.Step{Name: "lie", Request: config.Request{Path: "/items/{{.id}}?lie=1"}, Expect: map[string]any{"id": "{{.id}}"}},
	)
	x, err := p.NewExecutor(srv.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	x.Begin(0)
	var fails []*Failure
	for i := 0; i < x.Steps(); i++ {
		req, err := x.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		resp := send(t, srv, req)
		f, err := x.Check(i, Response{Status: resp.StatusCode, Body: resp.Body})
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f != nil {
			c := *f
			fails = append(fails, &c)
		}
	}
	if len(fails) != 1 || !strings.Contains(fails[0].Message(), `id = "other", want a-7`) {
		t.Fatalf("failures %v, want only the lying step, expecting the saved id", fails)
	}
}
