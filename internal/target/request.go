package target

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// maxBody bounds what is read of a probe or dataset response.
const maxBody = 1 << 20

type answer struct {
	Status int
	Body   []byte
	Saw    string // "GET /count → 200 {"count":3}" or "GET /count"
}

// send makes one request of a config.Request against baseURL. A transport
// error is returned with answer.Saw naming the request.
func send(ctx context.Context, client *http.Client, baseURL string, r *config.Request) (answer, error) {
	method := cmp.Or(r.Method, http.MethodGet)
	label := method + " " + r.Path
	body, contentType, err := requestBody(r)
	if err != nil {
		return answer{Saw: label}, err
	}
	req, err := http.NewRequestWithContext(ctx, method, joinURL(baseURL, r.Path), body)
	if err != nil {
		return answer{Saw: label}, fmt.Errorf("bad request: %w", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	resp, err := cmp.Or(client, defaultClient).Do(req)
	if err != nil {
		return answer{Saw: label}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	a := answer{Status: resp.StatusCode, Body: data, Saw: fmt.Sprintf("%s → %d %s", label, resp.StatusCode, snippet(data))}
	if err != nil {
		return a, fmt.Errorf("reading the response: %w", err)
	}
	return a, nil
}

func requestBody(r *config.Request) (io.Reader, string, error) {
	switch {
	case r.JSON != nil:
		b, err := json.Marshal(r.JSON)
		if err != nil {
			return nil, "", fmt.Errorf("json body cannot be encoded: %w", err)
		}
		return bytes.NewReader(b), "application/json", nil
	case r.Body != "":
		return strings.NewReader(r.Body), "", nil
	case r.Form != nil:
		v := url.Values{}
		for k, x := range r.Form {
			v.Set(k, x)
		}
		return strings.NewReader(v.Encode()), "application/x-www-form-urlencoded", nil
	}
	return nil, "", nil
}

// checkStatus compares a status with the expected one (0: any 2xx).
func checkStatus(got, want int) error {
	switch {
	case want == 0 && (got < 200 || got > 299):
		return fmt.Errorf("status %d, want 2xx", got)
	case want != 0 && got != want:
		return fmt.Errorf("status %d, want %d", got, want)
	}
	return nil
}

// joinURL puts path under baseURL; an absolute URL is used as it is.
func joinURL(baseURL, path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	return strings.TrimRight(baseURL, "/") + "/" + strings.TrimLeft(path, "/")
}

// snippet is the start of a body on one line, for messages.
func snippet(b []byte) string {
	const max = 200
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
