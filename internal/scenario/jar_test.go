package scenario

import (
	"net/url"
	"testing"
	"time"
)

func testJar(t *testing.T, base string) *jar {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return newJar(u)
}

func TestJarPathsOrderAndReplacement(t *testing.T) {
	t.Parallel()
	j := testJar(t, "http://127.0.0.1:8080")
	now := time.Unix(1_800_000_000, 0)
	for _, line := range []string{
		"sid=1; Path=/",
		"pref=dark; Path=/app/settings",
		"cart=7",          // from /app/cart/add: default path /app/cart
		"sid=2; Path=/",   // replaces sid=1
		"bad cookie line", // malformed: ignored
	} {
		j.set(line, "/app/cart/add", now)
	}
	for _, tc := range []struct{ path, want string }{
		{"/", "sid=2"},
		{"/app/cart", "cart=7; sid=2"},
		{"/app/cart/items/3", "cart=7; sid=2"},
		{"/app/cartoon", "sid=2"}, // /app/cart does not cover /app/cartoon
		{"/app/settings/x", "pref=dark; sid=2"},
	} {
		if got := j.header(tc.path, now); got != tc.want {
			t.Errorf("Cookie for %s = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestJarExpiryAndDeletion(t *testing.T) {
	t.Parallel()
	j := testJar(t, "http://127.0.0.1:8080")
	now := time.Unix(1_800_000_000, 0)
	j.set("short=1; Max-Age=10", "/", now)
	j.set("long=1; Expires="+now.Add(time.Hour).UTC().Format(time.RFC1123), "/", now)
	j.set("gone=1", "/", now)
	if got := j.header("/", now); got != "short=1; long=1; gone=1" {
		t.Fatalf("Cookie = %q", got)
	}
	j.set("gone=; Max-Age=0", "/", now) // a logout deletes the cookie
	if got := j.header("/", now); got != "short=1; long=1" {
		t.Errorf("after Max-Age=0: %q, want gone deleted", got)
	}
	// The header built before must not outlive the cookie it holds.
	if got := j.header("/", now.Add(11*time.Second)); got != "long=1" {
		t.Errorf("11 s later: %q, want short expired", got)
	}
	j.set("long=1; Expires="+now.Add(-time.Hour).UTC().Format(time.RFC1123), "/", now)
	if got := j.header("/", now.Add(11*time.Second)); got != "" {
		t.Errorf("after an Expires in the past: %q, want none", got)
	}
}

// A cookie for another domain is refused, as a browser refuses it; a
// Secure one goes to https or a loopback host only.
func TestJarDomainAndSecure(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	local := testJar(t, "http://127.0.0.1:8080")
	local.set("a=1; Domain=example.com", "/", now)
	local.set("b=1; Domain=127.0.0.1; Secure", "/", now)
	if got := local.header("/", now); got != "b=1" {
		t.Errorf("loopback: %q, want b only (a is another domain's; Secure goes to loopback)", got)
	}
	remote := testJar(t, "http://app.example.com")
	remote.set("c=1; Domain=.example.com", "/", now)
	remote.set("d=1; Secure", "/", now)
	if got := remote.header("/", now); got != "c=1" {
		t.Errorf("plain http to a remote host: %q, want c only (no Secure cookie in clear text)", got)
	}
	tls := testJar(t, "https://app.example.com")
	tls.set("d=1; Secure", "/", now)
	if got := tls.header("/", now); got != "d=1" {
		t.Errorf("https: %q, want the Secure cookie", got)
	}
}
