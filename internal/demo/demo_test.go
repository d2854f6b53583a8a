package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// client talks to a service on a real loopback server.
type client struct {
	t    *testing.T
	base string
}

func startService(t *testing.T, opt Options) (*Service, client) {
	t.Helper()
	svc := New(opt)
	srv := httptest.NewServer(svc)
	t.Cleanup(func() { srv.Close(); svc.Close() })
	return svc, client{t, srv.URL}
}

// do sends a request and returns the status and body.
func (c client) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func (c client) json(method, path string, body any, wantStatus int) map[string]any {
	c.t.Helper()
	status, out := c.do(method, path, body)
	if status != wantStatus {
		c.t.Fatalf("%s %s → %d %s, want %d", method, path, status, out, wantStatus)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		c.t.Fatalf("%s %s: body %q is not JSON: %v", method, path, out, err)
	}
	return m
}

func (c client) count() int {
	c.t.Helper()
	return int(c.json("GET", "/count", nil, 200)["count"].(float64))
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	_, c := startService(t, Options{})
	if n := c.count(); n != 3 {
		t.Fatalf("fresh service holds %d complaints, want the fixed 3", n)
	}
	created := c.json("POST", "/complaints", map[string]string{"title": "Broken bench", "body": "In the park"}, 201)
	id, _ := created["id"].(string)
	if id == "" || created["state"] != StateOpen {
		t.Fatalf("create answered %v, want an id and state OPEN", created)
	}
	if got := c.json("POST", "/complaints/"+id+"/assign", map[string]string{"assignee": "parks"}, 200); got["state"] != StateAssigned {
		t.Fatalf("assign answered %v, want ASSIGNED", got)
	}
	if got := c.json("POST", "/complaints/"+id+"/resolve", nil, 200); got["state"] != StateResolved {
		t.Fatalf("resolve answered %v, want RESOLVED", got)
	}
	found := c.json("GET", "/complaints/search?q="+id, nil, 200)
	items := found["items"].([]any)
	if found["count"] != 1.0 || len(items) != 1 || items[0].(map[string]any)["state"] != StateResolved {
		t.Fatalf("search by id answered %v, want exactly the resolved complaint", found)
	}
	if got := c.json("GET", "/complaints/"+id, nil, 200); got["assignee"] != "parks" {
		t.Fatalf("get answered %v, want assignee parks", got)
	}
	if n := c.count(); n != 4 {
		t.Fatalf("count after one create = %d, want 4", n)
	}
}

func TestResolveBeforeAssignIsInvalidAction(t *testing.T) {
	t.Parallel()
	_, c := startService(t, Options{})
	id := c.json("POST", "/complaints", map[string]string{"title": "t"}, 201)["id"].(string)
	status, body := c.do("POST", "/complaints/"+id+"/resolve", nil)
	if got := fmt.Sprintf("%d %s", status, body); got != "409 INVALID ACTION" {
		t.Fatalf("resolve before assign = %q, want %q", got, "409 INVALID ACTION")
	}
}

func TestAsyncAssignOvertakenByResolve(t *testing.T) {
	svc, c := startService(t, Options{Async: true, AsyncDelay: 300 * time.Millisecond})
	id := c.json("POST", "/complaints", map[string]string{"title": "t"}, 201)["id"].(string)
	if got := c.json("POST", "/complaints/"+id+"/assign", map[string]string{"assignee": "a"}, 202); got["state"] != StateAccepted {
		t.Fatalf("async assign answered %v, want ACCEPTED", got)
	}
	if p := c.json("GET", "/stats", nil, 200)["pending"]; p != 1.0 {
		t.Fatalf("pending right after an async assign = %v, want 1", p)
	}
	if status, body := c.do("POST", "/complaints/"+id+"/resolve", nil); status != 409 || string(body) != "INVALID ACTION" {
		t.Fatalf("resolve overtaking the assign = %d %s, want 409 INVALID ACTION", status, body)
	}
	waitPending(t, svc, 0, 5*time.Second)
	if got := c.json("POST", "/complaints/"+id+"/resolve", nil, 200); got["state"] != StateResolved {
		t.Fatalf("resolve after the commit answered %v, want RESOLVED", got)
	}
}

func waitPending(t *testing.T, svc *Service, want int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for svc.Counters().Pending != want {
		if time.Now().After(deadline) {
			t.Fatalf("pending = %d after %v, want %d", svc.Counters().Pending, within, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAsyncCommitBeforeResetDoesNotTouchNewDataset(t *testing.T) {
	svc, c := startService(t, Options{Async: true, AsyncDelay: 100 * time.Millisecond})
	c.json("POST", "/complaints/CMP-0001/assign", map[string]string{"assignee": "late"}, 202)
	c.json("POST", "/reset", nil, 200)
	waitPending(t, svc, 0, 5*time.Second)
	if got := c.json("GET", "/complaints/CMP-0001", nil, 200); got["state"] != StateOpen {
		t.Fatalf("complaint after reset and stale commit = %v, want OPEN", got)
	}
}

func TestResetRestoresExactlyThree(t *testing.T) {
	t.Parallel()
	_, c := startService(t, Options{})
	for i := 0; i < 5; i++ {
		c.json("POST", "/complaints", map[string]string{"title": fmt.Sprint("c", i)}, 201)
	}
	if n := c.count(); n != 8 {
		t.Fatalf("count = %d, want 8", n)
	}
	if got := c.json("POST", "/reset", nil, 200); got["count"] != 3.0 {
		t.Fatalf("reset answered %v, want count 3", got)
	}
	if n := c.count(); n != 3 {
		t.Fatalf("count after reset = %d, want 3", n)
	}
	// ids restart too, so every run sees the same dataset
	if got := c.json("POST", "/complaints", map[string]string{"title": "x"}, 201); got["id"] != "CMP-0004" {
		t.Fatalf("first id after reset = %v, want CMP-0004", got["id"])
	}
}

func TestSearchCostGrowsWithStoredComplaints(t *testing.T) {
	t.Parallel()
	svc, c := startService(t, Options{})
	scannedBy := func() int64 {
		before := svc.Counters().Scanned
		c.json("GET", "/complaints/search?q=pothole", nil, 200)
		return svc.Counters().Scanned - before
	}
	if got := scannedBy(); got != 3 {
		t.Fatalf("search over the fixed dataset scanned %d, want 3", got)
	}
	for i := 0; i < 40; i++ {
		c.json("POST", "/complaints", map[string]string{"title": fmt.Sprint("pothole ", i)}, 201)
	}
	if got := scannedBy(); got != 43 {
		t.Fatalf("search over 43 complaints scanned %d, want 43", got)
	}
	found := c.json("GET", "/complaints/search?q=POTHOLE", nil, 200)
	if found["count"] != 41.0 || len(found["items"].([]any)) != searchLimit {
		t.Fatalf("search = count %v, %d items; want count 41 and %d items", found["count"], len(found["items"].([]any)), searchLimit)
	}
}

func TestEveryRequestBurnsWorkScaledBySlowdown(t *testing.T) {
	t.Parallel()
	base, c := startService(t, Options{Work: 200})
	slow, cs := startService(t, Options{Work: 200, Slowdown: 0.3})
	for i := 0; i < 4; i++ {
		c.do("GET", "/health", nil)
		cs.do("GET", "/health", nil)
	}
	if got := base.Counters().WorkUnits; got != 4*200 {
		t.Fatalf("base work for 4 requests = %d rounds, want 800", got)
	}
	if got := slow.Counters().WorkUnits; got != 4*260 {
		t.Fatalf("30%% slowdown work for 4 requests = %d rounds, want 1040", got)
	}
	if New(Options{}).RoundsPerRequest() != DefaultWork {
		t.Fatalf("default work is not DefaultWork")
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	_, c := startService(t, Options{})
	cases := []struct {
		method, path string
		body         any
		status       int
		want         string
	}{
		{"POST", "/complaints", "not an object", 400, "not the expected JSON"},
		{"POST", "/complaints", map[string]string{"body": "no title"}, 400, "title is required"},
		{"POST", "/complaints/CMP-0001/assign", map[string]string{}, 400, "assignee is required"},
		{"POST", "/complaints/CMP-9999/resolve", nil, 404, "complaint CMP-9999 not found"},
		{"GET", "/complaints/CMP-9999", nil, 404, "not found"},
		{"POST", "/complaints/CMP-0003/assign", map[string]string{"assignee": "x"}, 409, "INVALID ACTION"},
		{"DELETE", "/complaints", nil, 405, ""},
	}
	for _, tc := range cases {
		status, body := c.do(tc.method, tc.path, tc.body)
		if status != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s %s → %d %s, want %d containing %q", tc.method, tc.path, status, body, tc.status, tc.want)
		}
	}
}

func TestParseSlowdown(t *testing.T) {
	t.Parallel()
	good := map[string]float64{"30%": 0.3, "0.3": 0.3, " 5 % ": 0.05, "0": 0, "0%": 0, "150%": 1.5, "2": 2}
	for in, want := range good {
		got, err := ParseSlowdown(in)
		if err != nil || abs(got-want) > 1e-12 {
			t.Errorf("ParseSlowdown(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":      "empty",
		"abc":   "not a number",
		"-10%":  "negative",
		"30":    `did you mean "30%"`,
		"2000%": "above the maximum",
		"NaN":   "not a number",
	}
	for in, want := range bad {
		_, err := ParseSlowdown(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSlowdown(%q) error = %v, want one containing %q", in, err, want)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
