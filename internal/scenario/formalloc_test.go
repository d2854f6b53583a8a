package scenario

import (
	"regexp"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// A form renders into one buffer: its constant fields are encoded once per
// plan, so it allocates no more than the same two templates in headers.
func TestFormBodyAllocations(t *testing.T) {
	form := map[string]string{"a": "x y", "b": "{{vu}}", "c": "const & more", "d": "{{randInt 1 9}}", "e": "tail"}
	x, _ := firstRequest(t, mustCompile(t, config.Step{Name: "f", Request: config.Request{Method: "POST", Path: "/f", Form: form}}), "http://127.0.0.1:1")
	hdrs := map[string]string{"X-A": "{{vu}}", "X-B": "{{randInt 1 9}}"}
	h, _ := firstRequest(t, mustCompile(t, config.Step{Name: "f", Request: config.Request{Method: "POST", Path: "/f", Headers: hdrs}}), "http://127.0.0.1:1")
	if f, hd := testing.AllocsPerRun(200, func() { x.Request(0) }), testing.AllocsPerRun(200, func() { h.Request(0) }); f > hd {
		t.Errorf("a form of two templated values allocates %v times a request, the same two in headers %v", f, hd)
	}
	if req, _ := x.Request(0); !regexp.MustCompile(`^a=x\+y&b=0&c=const\+%26\+more&d=[1-9]&e=tail$`).Match(req.Body) {
		t.Errorf("form body %q", req.Body)
	}
}
