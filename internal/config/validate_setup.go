package config

import (
	"crypto/x509"
	"fmt"
	"net/url"
	"os"

	"github.com/tailgate-ci/tailgate/internal/bounded"
)

func validateSetup(cfg *Config, c *collector) {
	switch s := cfg.Setup; {
	case s == nil:
	case cfg.Load.Engine == EngineCommand:
		c.addKey("setup", "not used with engine: command: the load tool's own script logs in (k6's setup(), Locust's on_start)")
	case !c.given("setup.run") && !c.given("setup.vu"):
		c.add("setup", "lists no steps: give run (once per run), vu (once per virtual user) or both, e.g. vu: [{path: /login, json: {…}, save: {token: token}}]")
	default:
		if c.given("setup.run") {
			validateSteps(s.Run, "setup.run", c)
		}
		if c.given("setup.vu") {
			validateSteps(s.VU, "setup.vu", c)
		}
	}
}

func validateFeed(cfg *Config, c *collector) {
	f := cfg.Feed
	if f == nil || cfg.Load.Engine == EngineCommand {
		c.addKeyIf(f != nil, "feed", "not used with engine: command: the load tool reads its own data files")
		return
	}
	oneOf(c, "feed.per", f.Per, "unknown value %q: expected %s (each virtual user takes the next row) or %s (each iteration does)", FeedPerVU, FeedPerIteration)
	oneOf(c, "feed.at_end", f.AtEnd, "unknown value %q: expected %s (start again at the first row) or %s (fail the run when the rows run out)", FeedWrap, FeedFail)
	if f.File == "" {
		c.add("feed.file", "required: a CSV file with a header line, or a JSON list of objects, e.g. users.csv")
		return
	}
	if err := readFeed(f, f.File, c); err != nil {
		c.add("feed.file", "%v", err)
		return
	}
	if f.Per == FeedPerVU && f.AtEnd == FeedFail {
		n, what := cfg.Load.MaxInflight, "load.max_inflight"
		if cfg.Load.Model == ModelClosed {
			n, what = cfg.Load.VUs, "load.vus"
		}
		c.addIf(n > len(f.Rows), "feed.at_end", "%s has %d rows, and at_end: fail gives each virtual user a row of its own: %s %d needs %d; add rows or use at_end: wrap", f.File, len(f.Rows), what, n, n)
	}
}

// validateTLS checks a target's tls section and reads its CA file.
func validateTLS(t *Target, key string, c *collector) {
	if t.TLS == nil {
		return
	}
	tlsKey := key + ".tls"
	u, err := url.Parse(t.URL)
	c.addKeyIf(err == nil && u.Scheme == "http", tlsKey, "tls is for an https url; %q is http", t.URL)
	if t.TLS.CAFile == "" {
		c.add(tlsKey+".ca_file", "required: a PEM file of the CA certificates that signed the target's certificate (the system's roots are trusted anyway)")
		return
	}
	pem, err := c.readFile(t.TLS.CAFile, maxCAFileBytes)
	if err != nil {
		c.add(tlsKey+".ca_file", "%v", err)
		return
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		c.add(tlsKey+".ca_file", "%s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", t.TLS.CAFile)
		return
	}
	t.TLS.CAPEM = string(pem)
}

// maxCAFileBytes bounds a CA file (every public root is about 200 KB).
const maxCAFileBytes = 4 << 20

// readLimited reads a regular file of at most max bytes, looking before it
// opens (a FIFO or a device never blocks or streams).
func readLimited(path string, max int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := bounded.ReadFile(path, "file", max)
	if err != nil && !bounded.IsTooLarge(err) {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	return data, err
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
