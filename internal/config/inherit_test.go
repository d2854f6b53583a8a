package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A side that is a target of its own takes every top-level target key it
// does not set but SideOwnKeys (issue 45: a side's own url and start used
// to drop the top-level counters silently). The table holds every yaml key
// of Target: a key added later fails here until it is placed.
func TestABSideInheritsEveryKeyItDoesNotSet(t *testing.T) {
	t.Parallel()
	top := map[string]string{ // key → how target sets it
		"url":      `url: "http://127.0.0.1:{{port}}"`,
		"start":    `start: {command: [./s, "{{port}}"]}`,
		"ready":    `ready: {path: /health}`,
		"pid_file": `pid_file: /run/s.pid`,
		"remote":   `remote: true`,
		"tls":      `tls: {ca_file: ca.pem}`,
		"measure":  `measure: [{name: db, pid_file: /run/pg.pid}]`,
		"counters": `counters: [{name: pg, pg_stat_statements: {database: app}}]`,
	}
	var keys []string
	tt := reflect.TypeFor[Target]()
	for i := range tt.NumField() {
		if k, _, _ := strings.Cut(tt.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for k := range top {
			if !yield(k) {
				return
			}
		}
	}); !slices.Equal(got, slices.Sorted(slices.Values(keys))) {
		t.Fatalf("the table holds %v, Target's keys are %v", got, keys)
	}
	ca := testCAPEM(t)
	rest := "load: {rate: 10/s}\nscenarios: [{steps: [{path: /}]}]\n"
	side := `{url: "http://127.0.0.1:9001", start: {command: [./b]}}`
	for _, key := range keys {
		if key == "url" || key == "start" {
			continue // the side sets both: it is a target of its own, started by tailgate
		}
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			// target sets url and start (the head's), and key.
			src := "name: x\ntarget: {url: \"http://127.0.0.1:{{port}}\", start: {command: [./s, \"{{port}}\"]}, " + top[key] + "}\n" +
				"ab: {base: " + side + "}\n" + rest
			switch key {
			case "pid_file": // beside start in target it is refused: here it is the only way target is found
				src = "name: x\ntarget: {url: \"http://127.0.0.1:9000\", pid_file: /run/s.pid}\nab: {base: " + side + "}\n" + rest
			case "remote":
				src = "name: x\ntarget: {url: \"http://192.0.2.1:9000\", remote: true}\nab: {base: " + side + "}\n" + rest
			case "tls":
				src = "name: x\ntarget: {url: \"https://127.0.0.1:9000\", tls: {ca_file: ca.pem}}\nab: {base: " + side + "}\n" + rest
			}
			cfg, err := ParseAt("x.yml", "x.yml", []byte(src), func(string, int64) ([]byte, error) { return []byte(ca), nil })
			if err != nil {
				t.Fatal(err)
			}
			got := reflect.ValueOf(cfg.AB.Base.TargetOr(cfg.Target)).FieldByName(tt.Field(slices.Index(keys, key)).Name)
			want := reflect.ValueOf(cfg.Target).FieldByName(tt.Field(slices.Index(keys, key)).Name)
			inherited := reflect.DeepEqual(got.Interface(), want.Interface())
			if own := slices.Contains(SideOwnKeys, key); inherited == own {
				t.Errorf("ab.base's %s = %v, target's %v: want inherited %v", key, got, want, !own)
			}
		})
	}
	// What a side sets stays its own.
	src := "name: x\ntarget: {url: \"http://127.0.0.1:9000\", ready: {path: /health}, counters: [{name: pg, pg_stat_statements: {database: app}}]}\n" +
		"ab: {base: {url: \"http://127.0.0.1:9001\", ready: {path: /up}, counters: []}}\n" + rest
	cfg := mustParse(t, src)
	if b := cfg.AB.Base.TargetOr(cfg.Target); b.Ready.Path != "/up" || len(b.Counters) != 0 {
		t.Errorf("the side's own ready and counters: %+v, %v", b.Ready, b.Counters)
	}
}

// A remote side cannot take target.measure (processes on this machine):
// refused, saying how to measure none, never dropped.
func TestABRemoteSideRefusesTargetMeasure(t *testing.T) {
	t.Parallel()
	src := "name: x\ntarget: {url: \"http://127.0.0.1:9000\", measure: [{name: db, pid_file: /run/pg.pid}]}\n" +
		"ab: {base: {url: \"http://192.0.2.1:80\", remote: true}}\nload: {rate: 10/s}\nscenarios: [{steps: [{path: /}]}]\n"
	_, err := Parse("x.yml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "x.yml:3:") || !strings.Contains(err.Error(), "ab.base.measure: []") {
		t.Fatalf("err = %v", err)
	}
	mustParse(t, strings.Replace(src, "remote: true}", "remote: true, measure: []}", 1))
}

// The recipe of issue 45: per-side targets (each side its own database)
// and the counters at the top level: both sides read the counters, and
// they are gated.
func TestABPerSideTargetsMeasureTopLevelCounters(t *testing.T) {
	t.Parallel()
	src := `name: x
target:
  url: http://127.0.0.1:9000
  counters: [{name: pg, pg_stat_statements: {database: "app_${TAILGATE_SIDE}"}, gate: [calls]}]
ab:
  base: {ref: main, url: "http://127.0.0.1:{{port}}", start: {command: [./s, "{{port}}", base]}}
  head: {url: "http://127.0.0.1:{{port}}", start: {command: [./s, "{{port}}", head]}}
load: {rate: 10/s}
scenarios: [{steps: [{path: /}]}]
`
	cfg := mustParse(t, src)
	for _, s := range []ABSide{cfg.AB.Base, cfg.AB.Head} {
		if c := s.TargetOr(cfg.Target).Counters; len(c) != 1 || c[0].Name != "pg" || c[0].Timeout != DefaultCounterTimeout {
			t.Errorf("side %s: counters %+v", s.URL, c)
		}
	}
	if gated := cfg.GatedMetrics(nil); !slices.Contains(gated, "counter.pg.calls") {
		t.Errorf("gated %v", gated)
	}
}
