package k6

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// NDJSON reads `k6 run --out json`: one JSON object per line, either a
// metric declaration ("type":"Metric") or a sample ("type":"Point").
type NDJSON struct{}

func (NDJSON) Name() string { return "k6-ndjson" }

// ndLine is one line of k6's JSON output; both the old layout (type first,
// "tainted"/"sub" in Metric data) and the new one decode into it.
type ndLine struct {
	Type   string `json:"type"`
	Metric string `json:"metric"`
	Data   struct {
		Time  time.Time      `json:"time"`
		Value float64        `json:"value"`
		Tags  map[string]any `json:"tags"`
	} `json:"data"`
}

func looksLikeNDJSON(head []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte{'\n'})
	var l struct {
		Type   string `json:"type"`
		Metric string `json:"metric"`
	}
	if json.Unmarshal(bytes.TrimRight(first, "\r"), &l) != nil {
		return false
	}
	return (l.Type == "Metric" || l.Type == "Point") && l.Metric != ""
}

func (NDJSON) Sniff(_ string, head []byte) bool { return looksLikeNDJSON(head) }

const ndWhat = `a k6 --out json line: {"type":"Metric"|"Point","metric":…,"data":{…}}`

func (NDJSON) Import(name string, r io.Reader) (*result.Run, error) {
	agg := newAggregator()
	lines := importer.NewLineReader(r)
	var notes []string
	var pv pointView
	fastTag := pv.tag
	for lines.Scan() {
		b := lines.Bytes()
		if pv.read(b) {
			agg.add(point{metric: pv.strs.String(pv.metric), time: pv.time, value: pv.value, tag: fastTag})
			continue
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var l ndLine
		err := json.Unmarshal(b, &l)
		if err == nil && l.Type != "Metric" && l.Type != "Point" {
			err = fmt.Errorf("unknown type %q", l.Type)
		}
		if err != nil && !lines.Complete() {
			// A JSON object closes itself: a last line without a line
			// break that parses is whole, one that does not is cut.
			notes = append(notes, importer.CutNote(lines.Line()))
			break
		}
		if err != nil {
			return nil, &importer.SyntaxError{File: name, Line: lines.Line(), Msg: fmt.Sprintf("%v; expected %s", err, ndWhat)}
		}
		if l.Type == "Point" {
			tags := l.Data.Tags
			agg.add(point{metric: l.Metric, time: l.Data.Time, value: l.Data.Value, tag: func(k string) string {
				s, _ := tags[k].(string)
				return s
			}})
		}
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	run, err := agg.run(name)
	if err != nil {
		return nil, err
	}
	run.Notes = append(run.Notes, notes...)
	return run, nil
}
