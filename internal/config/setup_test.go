package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestExtensionKeysAtTopLevelAreIgnored(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
x-common: &login {path: /login, json: {user: a}, save: {token: token}}
x-headers: &auth {Authorization: "Bearer {{.token}}"}
target: {url: "http://127.0.0.1:8080"}
load: {rate: 1}
setup:
  vu: [*login]
scenarios:
  - steps: [{path: /a, headers: *auth}]
`)
	if cfg.Setup.VU[0].Path != "/login" || cfg.Scenarios[0].Steps[0].Headers["Authorization"] != "Bearer {{.token}}" {
		t.Errorf("anchors under x- keys were not read where aliased: %+v %+v", cfg.Setup, cfg.Scenarios[0].Steps[0])
	}
	// Only the top level: an x- key elsewhere is still a typo to report.
	ps := problemsOf(t, lines(l("target: {url: 'http://127.0.0.1:1', x-note: hi}"), l("load: {rate: 1}"), scenarioOK))
	if len(ps) != 1 || ps[0].Key != "target.x-note" || !strings.Contains(ps[0].Msg, `unknown key "x-note"`) {
		t.Errorf("got %v", &Error{ps})
	}
}

func TestSetupStepsParseWithDefaults(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
target: {url: "http://127.0.0.1:8080"}
load: {model: closed, vus: 2}
setup:
  run:
    - {path: /admin/login, json: {password: '{{env "ADMIN_PASSWORD"}}'}, save: {admin: token}}
  vu:
    - name: login
      path: /login
      json: {user: "u{{vu}}"}
      status: 200
      save: {token: token}
      expect: {user: "u{{vu}}"}
scenarios: [{steps: [{path: /a}]}]
`)
	run, vu := cfg.Setup.Run[0], cfg.Setup.VU[0]
	if run.Name != "POST /admin/login" || run.Method != "POST" || run.Save["admin"] != (SaveFrom{From: SaveJSON, Name: "token"}) {
		t.Errorf("run setup step %+v", run)
	}
	if vu.Name != "login" || vu.Status != 200 || vu.Expect["user"] != "u{{vu}}" {
		t.Errorf("vu setup step %+v", vu)
	}
}

func TestSetupProblems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src, key, msg string
	}{
		{"empty setup", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("setup: {}")),
			"setup", "lists no steps"},
		{"empty vu list", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("setup: {vu: []}")),
			"setup.vu", "at least one step"},
		{"bad setup path", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("setup:", "  run: [{path: login}]")),
			"setup.run[0].path", "must start with /"},
		{"unknown key in a setup step", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("setup:", "  vu: [{path: /l, sav: {t: t}}]")),
			"setup.vu[0].sav", `did you mean "save"`},
		{"setup with a load tool", lines(targetOK, l("load: {engine: command, command: [k6], output: o.json}"), l("setup:", "  vu: [{path: /l}]")),
			"setup", "not used with engine: command"},
		{"unclosed template in expect", lines(targetOK, l("load: {rate: 1}"), l("scenarios:", "  - steps: [{path: /a, expect: {slug: '{{.slug'}}]")),
			"scenarios[0].steps[0].expect.slug", "unclosed {{"},
		{"same step name twice", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("setup:", "  vu: [{path: /l}, {path: /l}]")),
			"setup.vu[1].name", "already used"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := problemsOf(t, tc.src)
			if len(ps) != 1 || ps[0].Key != tc.key || !strings.Contains(ps[0].Msg, tc.msg) || ps[0].Line == 0 {
				t.Errorf("got %v\nwant one problem at a line: %s: …%s…", &Error{ps}, tc.key, tc.msg)
			}
		})
	}
}

func TestSetupIsPartOfTheDefinition(t *testing.T) {
	t.Parallel()
	const setup = "setup:\n  vu: [{path: /login, json: {password: '{{env \"PW\"}}'}, save: {token: token}}]\n"
	without := mustParse(t, hashBase).DefinitionHash()
	with := mustParse(t, hashBase+setup).DefinitionHash()
	other := mustParse(t, hashBase+strings.Replace(setup, "/login", "/signin", 1)).DefinitionHash()
	if with == without || with == other {
		t.Errorf("setup steps must change the hash: without %s, with %s, other %s", without, with, other)
	}
	// A definition without setup or feed encodes as it did before they
	// existed, so that its stored baselines stay comparable.
	cfg := mustParse(t, hashBase)
	b, err := json.Marshal(cfg.Definition())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Setup") || strings.Contains(string(b), "Feed") {
		t.Errorf("an unset setup or feed is encoded: %s", b)
	}
}

func TestTLSAndRemoteTargets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ca.pem"), testCAPEM(t))
	writeFile(t, filepath.Join(dir, "not-a-ca.pem"), "hello\n")
	parse := func(target string) (*Config, []Problem) {
		src := "target: " + target + "\nload: {rate: 1}\nscenarios: [{steps: [{path: /}]}]\n"
		cfg, err := Parse(filepath.Join(dir, "bench.yml"), []byte(src))
		if err != nil {
			return nil, err.(*Error).Problems
		}
		return cfg, nil
	}
	cfg, ps := parse(`{url: "https://staging.example.com", remote: true, tls: {ca_file: ca.pem}}`)
	if ps != nil {
		t.Fatalf("a remote https target with a CA file: %v", &Error{ps})
	}
	if !cfg.Target.Remote || !strings.Contains(cfg.Target.TLS.CAPEM, "BEGIN CERTIFICATE") {
		t.Errorf("target %+v", cfg.Target)
	}
	if _, ps := parse(`{url: "https://127.0.0.1:8443", tls: {ca_file: ca.pem}}`); ps != nil {
		t.Errorf("a loopback https target with a CA file: %v", &Error{ps})
	}
	cases := []struct{ target, key, msg string }{
		{`{url: "http://10.1.2.3:8080"}`, "target.url", "unless the target says remote: true"},
		{`{url: "http://staging.example.com"}`, "target.url", `host "staging.example.com" is not this machine`},
		{`{url: "http://127.0.0.1:8080", remote: true}`, "target.remote", "is this machine"},
		{`{url: "http://localhost:8080", remote: true}`, "target.remote", "is this machine"},
		{`{url: "http://10.1.2.3:8080", remote: true, start: {command: [./server]}}`, "target.start", "cannot be started by tailgate"},
		{`{url: "http://10.1.2.3:8080", remote: true, pid_file: /tmp/p}`, "target.pid_file", "cannot be sampled"},
		{`{url: "http://10.1.2.3:8080", remote: yes-please}`, "target.remote", "expected true or false"},
		{`{url: "http://127.0.0.1:8080", tls: {ca_file: ca.pem}}`, "target.tls", "tls is for an https url"},
		{`{url: "https://127.0.0.1:8443", tls: {}}`, "target.tls.ca_file", "required"},
		{`{url: "https://127.0.0.1:8443", tls: {ca_file: missing.pem}}`, "target.tls.ca_file", "cannot read"},
		{`{url: "https://127.0.0.1:8443", tls: {ca_file: not-a-ca.pem}}`, "target.tls.ca_file", "holds no PEM certificate"},
	}
	for _, tc := range cases {
		_, ps := parse(tc.target)
		if len(ps) != 1 || ps[0].Key != tc.key || !strings.Contains(ps[0].Msg, tc.msg) || ps[0].Line == 0 {
			t.Errorf("target %s:\ngot %v\nwant one problem: %s: …%s…", tc.target, &Error{ps}, tc.key, tc.msg)
		}
	}
}

// testCAPEM is a fresh self-signed CA certificate in PEM.
func testCAPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tailgate test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
