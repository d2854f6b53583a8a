package config

import (
	"encoding/json"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestSaveSourcesAndCookies(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, lines(targetOK, l(
		"load: {rate: 1, cookies: false}",
		"scenarios:",
		"  - steps:",
		"      - path: /login",
		"        save:",
		"          id: data.id",
		"          user: {json: user.name}",
		"          csrf: {header: X-CSRF-Token}",
		"          sid: {cookie: session}",
	)))
	want := map[string]SaveFrom{
		"id":   {From: SaveJSON, Name: "data.id"},
		"user": {From: SaveJSON, Name: "user.name"},
		"csrf": {From: SaveHeader, Name: "X-CSRF-Token"},
		"sid":  {From: SaveCookie, Name: "session"},
	}
	got := cfg.Scenarios[0].Steps[0].Save
	for k, w := range want {
		if got[k] != w {
			t.Errorf("save %s = %+v, want %+v", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("save = %+v, want %d entries", got, len(want))
	}
	if cfg.Load.CookieJar() {
		t.Error("load.cookies: false left the jar on")
	}
	if !mustParse(t, lines(targetOK, l("load: {rate: 1}"), scenarioOK)).Load.CookieJar() {
		t.Error("the jar is off by default; want on, as in browsers and k6")
	}
}

// A JSON path encodes as the plain string it was before saves had other
// sources, so that existing definitions keep their hash.
func TestSaveJSONPathEncodesAsBefore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		from SaveFrom
		want string
	}{
		{SaveFrom{From: SaveJSON, Name: "items.0.id"}, `"items.0.id"`},
		{SaveFrom{Name: "id"}, `"id"`},
		{SaveFrom{From: SaveHeader, Name: "X-CSRF-Token"}, `{"header":"X-CSRF-Token"}`},
		{SaveFrom{From: SaveCookie, Name: "sid"}, `{"cookie":"sid"}`},
	} {
		b, err := json.Marshal(tc.from)
		if err != nil || string(b) != tc.want {
			t.Errorf("%+v encodes as %s (%v), want %s", tc.from, b, err, tc.want)
		}
	}
	plain := mustParse(t, lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - {path: /a, save: {id: id}}")))
	mapped := mustParse(t, lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - {path: /a, save: {id: {json: id}}}")))
	if plain.DefinitionHash() != mapped.DefinitionHash() {
		t.Error("save: {id: id} and {id: {json: id}} hash differently; they are the same definition")
	}
	jar := mustParse(t, lines(targetOK, l("load: {rate: 1, cookies: true}"), scenarioOK))
	noJar := mustParse(t, lines(targetOK, l("load: {rate: 1, cookies: false}"), scenarioOK))
	unset := mustParse(t, lines(targetOK, l("load: {rate: 1}"), scenarioOK))
	if jar.DefinitionHash() != unset.DefinitionHash() {
		t.Error("load.cookies: true hashes unlike the unset default; writing out a default must not change the hash")
	}
	if jar.DefinitionHash() == noJar.DefinitionHash() {
		t.Error("load.cookies true and false hash alike; the cookies sent change what is measured")
	}
}

// A regex reads the body alone, or the value of another source; it
// encodes beside its source, and a form is a POST whose fields are kept.
func TestSaveRegexAndForm(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, lines(targetOK, l(
		"load: {rate: 1}",
		"scenarios:",
		"  - steps:",
		"      - path: /login",
		"        form: {user: 'u{{vu}}', password: 'a&b=c'}",
		"        expect: {header: {Location: '^/$'}}",
		"        save:",
		`          id: {regex: 'href="/(\d+)/update"'}`,
		`          loc: {header: Location, regex: '/(\d+)$'}`,
	)))
	st := cfg.Scenarios[0].Steps[0]
	want := map[string]SaveFrom{
		"id":  {From: SaveBody, Regex: `href="/(\d+)/update"`},
		"loc": {From: SaveHeader, Name: "Location", Regex: `/(\d+)$`},
	}
	for k, w := range want {
		if st.Save[k] != w {
			t.Errorf("save %s = %+v, want %+v", k, st.Save[k], w)
		}
		b, _ := json.Marshal(st.Save[k])
		var back SaveFrom
		if err := yaml.Unmarshal(b, &back); err != nil || back != w {
			t.Errorf("save %s encodes as %s, which reads back as %+v (%v)", k, b, back, err)
		}
	}
	if st.Method != "POST" || st.Form["password"] != "a&b=c" || st.Form["user"] != "u{{vu}}" {
		t.Errorf("step %+v, want a POST of the form as written", st.Request)
	}
	if hs, ok := st.Expect[ExpectHeader].(map[string]any); !ok || hs["Location"] != "^/$" {
		t.Errorf("expect %v, want header Location ^/$", st.Expect)
	}
}
