package scenario

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// jar holds one virtual user's cookies of the one host a plan loads, as a
// browser does (RFC 6265 §5.3–5.4): a cookie for another domain is
// refused, and a loopback host counts as secure, as browsers treat
// localhost (a Secure session cookie works over plain HTTP on 127.0.0.1).
// Each Executor has its own.
type jar struct {
	host      string // lower case, without port
	secure    bool   // Secure cookies may be sent
	cookies   []cookie
	gen       uint64 // counts changes: hdr is reused while gen, the path and the expiries allow
	built     uint64 // gen+1 when hdr was built (0: never)
	builtPath string
	hdr       string
	expires   time.Time // the soonest expiry among the cookies hdr holds
}

// cookie is one stored cookie; expires is zero for a session cookie.
type cookie struct {
	name, value, path string
	secure            bool
	expires           time.Time
}

func newJar(base *url.URL) *jar {
	h := strings.ToLower(base.Hostname())
	ip := net.ParseIP(h)
	loopback := h == "localhost" || strings.HasSuffix(h, ".localhost") || (ip != nil && ip.IsLoopback())
	return &jar{host: h, secure: base.Scheme == "https" || loopback}
}

// set stores the cookie a Set-Cookie field's value describes, received
// in the response to a request for path; a malformed or refused one is
// ignored.
func (j *jar) set(line, path string, now time.Time) {
	c, err := http.ParseSetCookie(line)
	if err != nil || !j.domainMatches(c.Domain) {
		return
	}
	k := cookie{name: c.Name, value: c.Value, path: c.Path, secure: c.Secure}
	if k.path == "" || k.path[0] != '/' {
		k.path = defaultPath(path)
	}
	expired := c.MaxAge < 0
	switch {
	case c.MaxAge > 0:
		k.expires = now.Add(time.Duration(c.MaxAge) * time.Second)
	case c.MaxAge == 0 && !c.Expires.IsZero():
		k.expires, expired = c.Expires, !c.Expires.After(now)
	}
	if !expired {
		j.merge([]cookie{k})
		return
	}
	j.cookies = slices.DeleteFunc(j.cookies, func(o cookie) bool { return o.name == k.name && o.path == k.path })
	j.gen++
}

// domainMatches reports whether a Domain attribute (none, the host or a
// domain above it) lets the jar keep a cookie.
func (j *jar) domainMatches(domain string) bool {
	d := strings.ToLower(strings.TrimPrefix(domain, "."))
	return d == "" || d == j.host || strings.HasSuffix(j.host, "."+d) && net.ParseIP(j.host) == nil
}

// defaultPath is a cookie's path by default (RFC 6265 §5.1.4): up to the last /.
func defaultPath(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return "/"
	}
	return path[:i]
}

// pathMatches reports whether cookie path cp covers path (RFC 6265 §5.1.4).
func pathMatches(cp, path string) bool {
	return strings.HasPrefix(path, cp) && (len(path) == len(cp) || cp[len(cp)-1] == '/' || path[len(cp)] == '/')
}

// header returns the Cookie header for a request for path ("" for none):
// the cookies whose path covers it, longer paths first (§5.4, else in the
// order set), expired ones dropped.
func (j *jar) header(path string, now time.Time) string {
	if len(j.cookies) == 0 {
		return ""
	}
	if j.built == j.gen+1 && j.builtPath == path && (j.expires.IsZero() || now.Before(j.expires)) {
		return j.hdr
	}
	n := len(j.cookies)
	if j.cookies = slices.DeleteFunc(j.cookies, func(c cookie) bool { return !c.expires.IsZero() && !now.Before(c.expires) }); len(j.cookies) != n {
		j.gen++
	}
	var b strings.Builder
	j.expires = time.Time{}
	byPath := make([]*cookie, 0, len(j.cookies))
	for i := range j.cookies {
		byPath = append(byPath, &j.cookies[i])
	}
	slices.SortStableFunc(byPath, func(a, b *cookie) int { return len(b.path) - len(a.path) })
	for _, c := range byPath {
		if !pathMatches(c.path, path) || (c.secure && !j.secure) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.name + "=" + c.value)
		if !c.expires.IsZero() && (j.expires.IsZero() || c.expires.Before(j.expires)) {
			j.expires = c.expires
		}
	}
	j.hdr, j.built, j.builtPath = b.String(), j.gen+1, path
	return j.hdr
}

// reset makes the jar hold exactly cookies (a copy).
func (j *jar) reset(cookies []cookie) {
	if slices.Equal(j.cookies, cookies) {
		return // the usual case: an iteration that changed none
	}
	j.cookies = append(j.cookies[:0], cookies...)
	j.gen++
}

// merge adds cookies, each replacing one of the same name and path.
func (j *jar) merge(cookies []cookie) {
	for _, c := range cookies {
		j.gen++
		if i := slices.IndexFunc(j.cookies, func(o cookie) bool { return o.name == c.name && o.path == c.path }); i >= 0 {
			j.cookies[i] = c
		} else {
			j.cookies = append(j.cookies, c)
		}
	}
}
