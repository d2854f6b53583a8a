package demo

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a log a handler may write to from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func call(t *testing.T, method, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return resp.StatusCode, out
}

func TestAuthRequiresATokenFromLogin(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	srv := httptest.NewServer(New(Options{Auth: true, Password: "pw-42", Log: &log}))
	defer srv.Close()

	if code, _ := call(t, "POST", srv.URL+"/complaints", "", `{"title": "t"}`); code != 401 {
		t.Errorf("create without a token: %d, want 401", code)
	}
	for _, bad := range []string{`{"user": "user-001", "password": "nope"}`, `{"user": "user-101", "password": "pw-42"}`, `{"user": "user-1", "password": "pw-42"}`} {
		if code, out := call(t, "POST", srv.URL+"/login", "", bad); code != 401 || strings.Contains(out["error"].(string), "pw-42") {
			t.Errorf("login %s: %d %v, want 401 without the password", bad, code, out)
		}
	}
	code, out := call(t, "POST", srv.URL+"/login", "", `{"user": "user-007", "password": "pw-42"}`)
	token, _ := out["token"].(string)
	if code != 200 || len(token) != 32 || out["user"] != "user-007" {
		t.Fatalf("login: %d %v", code, out)
	}
	if code, out := call(t, "POST", srv.URL+"/complaints", token, `{"title": "t"}`); code != 201 || out["state"] != StateOpen {
		t.Errorf("create with the token: %d %v", code, out)
	}
	if code, out := call(t, "GET", srv.URL+"/me", token, ""); code != 200 || out["user"] != "user-007" {
		t.Errorf("me: %d %v", code, out)
	}
	if code, _ := call(t, "GET", srv.URL+"/count", "", ""); code != 200 {
		t.Errorf("the dataset endpoints need no token: /count %d", code)
	}
	if code, _ := call(t, "POST", srv.URL+"/reset", "", ""); code != 200 {
		t.Fatalf("reset: %d", code)
	}
	code, out = call(t, "GET", srv.URL+"/complaints/search?q=x", token, "")
	if code != 401 || !strings.Contains(out["error"].(string), token) {
		t.Errorf("after a reset the session is over: %d %v, want 401 naming the refused token", code, out)
	}
	if got := log.String(); got != "login user-007\n" || strings.Contains(got, "pw-42") {
		t.Errorf("log %q, want one line per login, without the password", got)
	}
}

func TestWithoutAuthNoTokenIsNeeded(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(New(Options{}))
	defer srv.Close()
	if code, _ := call(t, "POST", srv.URL+"/complaints", "", `{"title": "t"}`); code != 201 {
		t.Errorf("create: %d, want 201", code)
	}
}
