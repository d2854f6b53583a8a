package k6

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
)

// FuzzPointViewMatchesEncodingJSON: every line pointView takes is a Point
// line that encoding/json reads into the same metric, time, value and tags
// (a tag's last value when a key repeats).
func FuzzPointViewMatchesEncodingJSON(f *testing.F) {
	for _, line := range bytes.Split(ndjsonSample(3), []byte{'\n'}) {
		f.Add(line)
	}
	for _, s := range []string{
		`{"metric":"x","type":"Point","data":{"time":"2026-12-04T20:00:00Z","value":-0.5e3,"tags":{}}}`,
		`{"metric":"x","type":"Point","data":{"time":"2026-12-04T20:00:00Z","value":1,"tags":{"a":"1","a":"2"}}}`,
		`{"metric":"x","type":"Point","data":{"time":"2026-12-04T20:00:00Z","value":01,"tags":{}}}`,
		`{"metric":"x","type":"Point","data":{"time":"2026-12-04T20:00:00Z","value":1e999,"tags":{}}}`,
		`{"metric":"é","type":"Point","data":{"time":"2026-12-04T20:00:00+05:30","value":1.,"tags":{"k":"\u00e9"}}}`,
		`{"metric":"x","type":"Point","data":{"time":"2026-12-04T20:00:00Z","value":1,"tags":{"k":"v"}}} `,
		`{"metric":"x","type":"Point","data":{"time":"2026-12-04T20:00:00Z","value":1,"tags":{"url":"` + strings.Repeat("é", 300) + `"}}}`,
		"{\"metric\":\"x\",\"type\":\"Point\",\"data\":{\"time\":\"2026-12-04T20:00:00Z\",\"value\":1,\"tags\":{\"k\":\"\xff\"}}}",
	} {
		f.Add([]byte(s))
	}
	importertest.AddSeeds(f, 1<<16, importertest.SharedFixtureFiles("k6-ndjson")...)
	f.Fuzz(func(t *testing.T, line []byte) {
		var v pointView
		if !v.read(line) {
			return
		}
		var want struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
			Data   struct {
				Time  json.RawMessage   `json:"time"`
				Value float64           `json:"value"`
				Tags  map[string]string `json:"tags"`
			} `json:"data"`
		}
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("pointView takes %q, which encoding/json refuses: %v", line, err)
		}
		var l ndLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("pointView takes %q, which the NDJSON line refuses: %v", line, err)
		}
		if want.Type != "Point" || want.Metric != string(v.metric) || want.Data.Value != v.value || !l.Data.Time.Equal(v.time) || l.Data.Time.String() != v.time.String() {
			t.Fatalf("%q: pointView read %q %v %v, encoding/json %q %q %v %v", line, v.metric, v.time, v.value, want.Type, want.Metric, l.Data.Time, want.Data.Value)
		}
		for k, val := range want.Data.Tags {
			if len(val) > maxTag { // a long tag is clipped as it is read, as its name would be
				val = importer.ClipName(val)
			}
			if got := v.tag(k); got != val {
				t.Fatalf("%q: tag %q is %q, encoding/json %q", line, k, got, val)
			}
		}
		if v.tag("\x00absent") != "" || len(want.Data.Tags) != countKeys(v.tags) {
			t.Fatalf("%q: tags %q, encoding/json %q", line, v.tags, want.Data.Tags)
		}
	})
}

func countKeys(tags [][2][]byte) int {
	keys := map[string]bool{}
	for _, kv := range tags {
		keys[string(kv[0])] = true
	}
	return len(keys)
}
