package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// echoed is what the echo server saw.
type echoed struct {
	Method, Path, Query, Body string
	Header                    http.Header
}

func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(echoed{r.Method, r.URL.Path, r.URL.RawQuery, string(b), r.Header})
	}))
	t.Cleanup(s.Close)
	return s
}

// Compile compiles scenarios with nothing but a seed, which makes every
// random value and scenario pick reproducible.
func Compile(scenarios []config.Scenario, seed int64) (*Plan, error) {
	return CompileWith(scenarios, Inputs{Seed: seed})
}

func mustCompile(t *testing.T, steps ...config.Step) *Plan {
	t.Helper()
	p, err := Compile([]config.Scenario{{Name: "s", Steps: steps}}, 42)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return p
}

// send sends req in its net/http form with srv's client.
func send(t *testing.T, srv *httptest.Server, req *Request) *http.Response {
	t.Helper()
	hr, err := req.HTTP(context.Background())
	if err != nil {
		t.Fatalf("HTTP: %v", err)
	}
	resp, err := srv.Client().Do(hr)
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	return resp
}

// firstRequest renders step 0 of iteration 0 of p for baseURL.
func firstRequest(t *testing.T, p *Plan, baseURL string) (*Executor, *Request) {
	t.Helper()
	x, err := p.NewExecutor(baseURL, 0)
	if err != nil {
		t.Fatal(err)
	}
	x.Begin(0)
	req, err := x.Request(0)
	if err != nil {
		t.Fatalf("Request: %v", err)
	}
	return x, req
}

// roundTrip runs step 0 of iteration seq against srv and returns what the
// server saw.
func roundTrip(t *testing.T, x *Executor, srv *httptest.Server, seq uint64) echoed {
	t.Helper()
	x.Begin(seq)
	req, err := x.Request(0)
	if err != nil {
		t.Fatalf("Request: %v", err)
	}
	resp := send(t, srv, req)
	defer resp.Body.Close()
	var got echoed
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatalf("decoding echo: %v", err)
	}
	return got
}

func TestCompileRejectsBadScenarios(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		scenarios []config.Scenario
		want      string
	}{
		{"bad template", []config.Scenario{{Name: "x", Steps: []config.Step{{Name: "a", Request: config.Request{Path: "/{{.id"}}}}}, `step "a" path`},
		{"unknown func", []config.Scenario{{Name: "x", Steps: []config.Step{{Name: "a", Request: config.Request{Path: "/{{nope}}"}}}}}, `function "nope" not defined`},
		{"unsaved var", []config.Scenario{{Name: "x", Steps: []config.Step{
			{Name: "a", Request: config.Request{Path: "/"}, Save: map[string]config.SaveFrom{"id": {Name: "id"}}},
			{Name: "b", Request: config.Request{Path: "/{{.idd}}"}},
		}}}, ".idd is not saved by an earlier step of this scenario (saved: .id)"},
		{"var saved later", []config.Scenario{{Name: "x", Steps: []config.Step{
			{Name: "a", Request: config.Request{Path: "/{{.id}}"}, Save: map[string]config.SaveFrom{"id": {Name: "id"}}},
		}}}, ".id is not saved"},
		{"nested field", []config.Scenario{{Name: "x", Steps: []config.Step{
			{Name: "a", Request: config.Request{Path: "/"}, Save: map[string]config.SaveFrom{"id": {Name: "id"}}},
			{Name: "b", Request: config.Request{Headers: map[string]string{"X": "{{.id.x}}"}}},
		}}}, "have no fields"},
		{"non-string key", []config.Scenario{{Name: "x", Steps: []config.Step{{Name: "a", Request: config.Request{JSON: map[any]any{1: "x"}}}}}}, `step "a" json: cannot be sent as JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.scenarios, 1)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Compile error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestStaticRequest(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	p := mustCompile(t, config.Step{Name: "create", Request: config.Request{
		Method: "post", Path: "/items?x=1",
		Headers: map[string]string{"x-team": "core"},
		JSON:    map[string]any{"b": []any{1, "two"}, "a": map[string]any{"c": true}},
	}})
	x, err := p.NewExecutor(srv.URL+"/api/", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := roundTrip(t, x, srv, 0)
	if got.Method != "POST" || got.Path != "/api/items" || got.Query != "x=1" {
		t.Errorf("request line = %s %s?%s, want POST /api/items?x=1", got.Method, got.Path, got.Query)
	}
	if got.Header.Get("X-Team") != "core" || got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers = %v", got.Header)
	}
	if want := `{"a":{"c":true},"b":[1,"two"]}`; got.Body != want {
		t.Errorf("body = %s, want %s", got.Body, want)
	}
}

func TestTemplatedJSONIsEscaped(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	tricky := "quote\" back\\ nl\n tab\t nul\x00 é 😀 <&>"
	steps := []config.Step{
		{Name: "a", Request: config.Request{Path: "/a"}, Save: map[string]config.SaveFrom{"v": {Name: "Body"}}},
		{Name: "b", Request: config.Request{Method: "POST", Path: "/b", JSON: map[string]any{
			"z": "{{.v}}", "a": []any{"n{{seq}}", 3}, "k": map[string]any{"m": "{{.v}}!"},
		}}},
	}
	p := mustCompile(t, steps...)
	x, err := p.NewExecutor(srv.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	x.Begin(7)
	x.vars["v"] = tricky // as if saved from a response
	req, err := x.Request(1)
	if err != nil {
		t.Fatal(err)
	}
	body := req.Body
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %s is not JSON: %v", body, err)
	}
	want := map[string]any{"z": tricky, "a": []any{"n7", 3.0}, "k": map[string]any{"m": tricky + "!"}}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("body decodes to %s, want %s", gotJSON, wantJSON)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\n\r\t\x01\x1f", "é😀", "\xff\xfe bad utf8", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("appendJSONString(%q) = %s: not a JSON string: %v", s, out, err)
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		if got != want && got != strings.ToValidUTF8(s, "") {
			// Each invalid byte becomes one U+FFFD, which ToValidUTF8 merges; compare loosely.
			if strings.ReplaceAll(got, "\ufffd", "") != strings.ReplaceAll(want, "\ufffd", "") {
				t.Fatalf("round trip of %q = %q", s, got)
			}
		}
	})
}

func urlPath(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("request URL %q: %v", raw, err)
	}
	return u.Path
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestTemplateValuesAreDeterministic(t *testing.T) {
	t.Parallel()
	step := config.Step{Name: "a", Request: config.Request{
		Path: "/{{seq}}/{{vu}}",
		Body: "{{randInt 10 20}} {{randString 12}} {{uuid}}",
	}}
	render := func(seed int64, vu int, seq uint64) (string, string) {
		p, err := Compile([]config.Scenario{{Steps: []config.Step{step}}}, seed)
		if err != nil {
			t.Fatal(err)
		}
		x, err := p.NewExecutor("http://127.0.0.1:1", vu)
		if err != nil {
			t.Fatal(err)
		}
		x.Begin(seq + 1) // another iteration first: state must not leak
		if _, err := x.Request(0); err != nil {
			t.Fatal(err)
		}
		x.Begin(seq)
		req, err := x.Request(0)
		if err != nil {
			t.Fatal(err)
		}
		return urlPath(t, req.URL), string(req.Body)
	}
	path, a := render(1, 3, 5)
	if path != "/5/3" {
		t.Errorf("path = %s, want /5/3 (seq, vu)", path)
	}
	if _, b := render(1, 9, 5); a != b {
		t.Errorf("same seed and iteration on another worker: %q vs %q", a, b)
	}
	if _, b := render(1, 3, 6); a == b {
		t.Errorf("iterations 5 and 6 drew the same values %q", a)
	}
	if _, b := render(2, 3, 5); a == b {
		t.Errorf("seeds 1 and 2 drew the same values %q", a)
	}
	fields := strings.Fields(a)
	if n, err := strconv.Atoi(fields[0]); err != nil || n < 10 || n > 20 {
		t.Errorf("randInt 10 20 = %q", fields[0])
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9]{12}$`).MatchString(fields[1]) {
		t.Errorf("randString 12 = %q", fields[1])
	}
	if !uuidPattern.MatchString(fields[2]) {
		t.Errorf("uuid = %q, want a version 4 UUID", fields[2])
	}
}

func TestRandIntCoversItsRange(t *testing.T) {
	t.Parallel()
	p := mustCompile(t, config.Step{Name: "a", Request: config.Request{Path: "/{{randInt 1 3}}"}})
	x, err := p.NewExecutor("http://127.0.0.1:1", 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for seq := range uint64(300) {
		x.Begin(seq)
		req, err := x.Request(0)
		if err != nil {
			t.Fatal(err)
		}
		seen[urlPath(t, req.URL)]++
	}
	for _, v := range []string{"/1", "/2", "/3"} {
		if seen[v] < 60 { // expected 100 each
			t.Errorf("randInt 1 3 gave %s %d times in 300 draws: %v", v, seen[v], seen)
		}
	}
	if len(seen) != 3 {
		t.Errorf("values outside 1..3: %v", seen)
	}
}

func TestBadTemplateArgumentsFailTheRequest(t *testing.T) {
	t.Parallel()
	p := mustCompile(t, config.Step{Name: "a", Request: config.Request{Path: "/{{randInt 5 1}}"}})
	x, _ := p.NewExecutor("http://127.0.0.1:1", 0)
	x.Begin(0)
	if _, err := x.Request(0); err == nil || !strings.Contains(err.Error(), "upper bound is below") {
		t.Fatalf("Request error = %v, want the randInt bounds explained", err)
	}
}

func TestNewExecutorRejectsBadBaseURL(t *testing.T) {
	t.Parallel()
	p := mustCompile(t, config.Step{Name: "a"})
	for _, u := range []string{"", "127.0.0.1:8080", "ftp://x", "http://", "://"} {
		if _, err := p.NewExecutor(u, 0); err == nil {
			t.Errorf("NewExecutor(%q) succeeded, want an error", u)
		}
	}
}

func TestPickFollowsWeights(t *testing.T) {
	t.Parallel()
	step := []config.Step{{Name: "a"}}
	p, err := Compile([]config.Scenario{
		{Name: "browse", Weight: 6, Steps: step},
		{Name: "buy", Weight: 3, Steps: step},
		{Name: "admin", Weight: 1, Steps: step},
	}, 7)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	counts := make([]int, 3)
	for seq := range uint64(n) {
		counts[p.Pick(seq)]++
	}
	for i, want := range []float64{0.6, 0.3, 0.1} {
		got := float64(counts[i]) / n
		if got < want-0.02 || got > want+0.02 {
			t.Errorf("scenario %d picked %.3f of the time, want %.2f ± 0.02 (counts %v)", i, got, want, counts)
		}
	}
	q, _ := Compile([]config.Scenario{
		{Name: "browse", Weight: 6, Steps: step}, {Name: "buy", Weight: 3, Steps: step}, {Name: "admin", Weight: 1, Steps: step},
	}, 7)
	for seq := range uint64(100) {
		if p.Pick(seq) != q.Pick(seq) {
			t.Fatalf("Pick(%d) differs between two plans with the same seed", seq)
		}
	}
}

func TestStepNamesAreSharedAcrossScenarios(t *testing.T) {
	t.Parallel()
	p, err := Compile([]config.Scenario{
		{Name: "x", Steps: []config.Step{{Name: "login"}, {Name: "list"}}},
		{Name: "y", Steps: []config.Step{{Name: "login"}, {}}},
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(p.StepNames(), ","), "login,list,step 2"; got != want {
		t.Errorf("StepNames = %s, want %s", got, want)
	}
}

// A rendered Request carries everything a client sends, in net/http's
// form too: the URL escaped as net/http escapes it, each header once.
func TestRequestIsComplete(t *testing.T) {
	t.Parallel()
	p := mustCompile(t,
		config.Step{Name: "fixed", Request: config.Request{Method: "post", Path: "/items?x=1",
			Headers: map[string]string{"x-team": "a", "X-Team": "b"}, JSON: map[string]any{"n": 1}},
			Save: map[string]config.SaveFrom{"id": {Name: "id"}, "tag": {Name: "tag"}}},
		config.Step{Name: "templated", Request: config.Request{Method: "PUT", Path: "/items/{{.id}}",
			Headers: map[string]string{"X-Tag": "{{.tag}}", "Accept": "text/plain"}, Body: "v={{.id}}"}},
	)
	x, req := firstRequest(t, p, "http://127.0.0.1:9/api")
	wantHeader := []Header{{"X-Team", "a"}, {"Content-Type", "application/json"}} // of keys equal but for case, the last sorted wins
	if req.Method != "POST" || req.URL != "http://127.0.0.1:9/api/items?x=1" || !slices.Equal(req.Header, wantHeader) || string(req.Body) != `{"n":1}` {
		t.Errorf("fixed step: %s %s %v %q", req.Method, req.URL, req.Header, req.Body)
	}
	checkHTTPForm(t, req)

	x.vars["id"], x.vars["tag"] = "a b/ü", "t 1"
	req, err := x.Request(1)
	if err != nil {
		t.Fatal(err)
	}
	wantHeader = []Header{{"Accept", "text/plain"}, {"X-Tag", "t 1"}}
	if req.URL != "http://127.0.0.1:9/api/items/a%20b/%C3%BC" || !slices.Equal(req.Header, wantHeader) || string(req.Body) != "v=a b/ü" {
		t.Errorf("templated step: %s %s %v %q", req.Method, req.URL, req.Header, req.Body)
	}
	checkHTTPForm(t, req)

	x.vars["tag"] = "x\r\nInjected: 1"
	if _, err := x.Request(1); err == nil || !strings.Contains(err.Error(), `header X-Tag: value "x\r\nInjected: 1" contains the control character 0xd`) {
		t.Errorf("a rendered header with CR LF: error %v, want it refused", err)
	}
}

// checkHTTPForm checks that req's net/http form says the same.
func checkHTTPForm(t *testing.T, req *Request) {
	t.Helper()
	hr, err := req.HTTP(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(hr.Body)
	if hr.Method != req.Method || hr.URL.String() != req.URL || !bytes.Equal(body, req.Body) || hr.ContentLength != int64(len(req.Body)) {
		t.Errorf("net/http form %s %s %q (length %d), want %s %s %q", hr.Method, hr.URL, body, hr.ContentLength, req.Method, req.URL, req.Body)
	}
	if len(hr.Header) != len(req.Header) {
		t.Errorf("net/http headers %v, want %v", hr.Header, req.Header)
	}
	for _, h := range req.Header {
		if got := hr.Header.Values(h.Name); len(got) != 1 || got[0] != h.Value {
			t.Errorf("net/http header %s = %q, want %q", h.Name, got, h.Value)
		}
	}
}

func TestStaticHeaderWithControlCharacterIsRefused(t *testing.T) {
	t.Parallel()
	_, err := Compile([]config.Scenario{{Name: "s", Steps: []config.Step{{Name: "a",
		Request: config.Request{Headers: map[string]string{"X-A": "one\ntwo"}}}}}}, 1)
	if err == nil || !strings.Contains(err.Error(), `step "a" header "X-A": value "one\ntwo" contains the control character 0xa`) {
		t.Fatalf("Compile error = %v, want the header value refused", err)
	}
}

// A URL taken as it is must be what parsing and writing it gives.
func FuzzPlainURL(f *testing.F) {
	for _, s := range []string{"/items/1?x=1&y=a+b", "/a'b!$&()*+,;=:@[]~", "/%41%2f", "/a b", "/%zz", "/é", "/a#f", "/a?b=c d", "/{x}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		raw := "http://127.0.0.1:9/api" + path
		if !plainURL([]byte(raw)) {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("plainURL(%q) but it does not parse: %v", raw, err)
		}
		if u.String() != raw {
			t.Fatalf("plainURL(%q) but it is written %q", raw, u.String())
		}
	})
}
