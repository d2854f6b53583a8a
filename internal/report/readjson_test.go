package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// The Markdown re-rendered from report.json is the Markdown of the Input it
// was written from, and reading then writing gives the same file.
func TestReadJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for name, in := range cases() {
		t.Run(name, func(t *testing.T) {
			var js bytes.Buffer
			if err := WriteJSON(&js, in); err != nil {
				t.Fatal(err)
			}
			got, err := ReadJSON(bytes.NewReader(js.Bytes()))
			if err != nil {
				t.Fatalf("ReadJSON of WriteJSON's output: %v", err)
			}
			if a, b := Markdown(got), Markdown(in); a != b {
				t.Errorf("Markdown after the round trip differs:\n--- read ---\n%s\n--- original ---\n%s", a, b)
			}
			var again bytes.Buffer
			if err := WriteJSON(&again, got); err != nil {
				t.Fatal(err)
			}
			if again.String() != js.String() {
				t.Errorf("WriteJSON(ReadJSON(x)) != x:\n%s\n---\n%s", again.String(), js.String())
			}
		})
	}
}

// The stored golden reports render to the stored golden Markdown.
func TestReadJSONGoldenFiles(t *testing.T) {
	t.Parallel()
	for name := range cases() {
		f, err := os.Open(filepath.Join("testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		in, err := ReadJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if got := Markdown(in); got != string(want) {
			t.Errorf("%s.json renders differently from %s.md:\n%s", name, name, got)
		}
	}
}

// mutated returns the regression golden report with edit applied.
func mutated(t *testing.T, edit func(m map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "regression.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func metric0(m map[string]any) map[string]any { return m["metrics"].([]any)[0].(map[string]any) }

func TestReadJSONRejects(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat(" ", MaxJSONBytes) + "{}"
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"oversize", "larger than 1048576 bytes", []byte(huge)},
		{"not JSON", "decode the report", []byte("<html>")},
		{"null", "schema 0 is not supported", []byte("null")},
		{"trailing data", "data after the JSON object", append(mutated(t, func(map[string]any) {}), []byte(" {}")...)},
		{"future schema", "schema 2 is not supported", mutated(t, func(m map[string]any) { m["schema"] = 2 })},
		{"no schema", "schema 0 is not supported", mutated(t, func(m map[string]any) { delete(m, "schema") })},
		{"unknown field", `unknown field "markdown"`, mutated(t, func(m map[string]any) { m["markdown"] = "<b>hi</b>" })},
		{"unknown nested field", `unknown field "html"`, mutated(t, func(m map[string]any) { metric0(m)["html"] = "x" })},
		{"bad verdict", `verdict: "lgtm" is not one of`, mutated(t, func(m map[string]any) { m["verdict"] = "lgtm" })},
		{"bad metric verdict", `metrics[0].verdict: "fine"`, mutated(t, func(m map[string]any) { metric0(m)["verdict"] = "fine" })},
		{"markup in unit", `metrics[0].unit: "<img src=x>"`, mutated(t, func(m map[string]any) { metric0(m)["unit"] = "<img src=x>" })},
		{"bad key", "metrics[0].key", mutated(t, func(m map[string]any) { metric0(m)["key"] = "Iter/s" })},
		{"bad floor source", "metrics[0].floor_source", mutated(t, func(m map[string]any) { metric0(m)["floor_source"] = "trust me" })},
		{"p above 1", "metrics[0].p: 7 is not a probability", mutated(t, func(m map[string]any) { metric0(m)["p"] = 7 })},
		{"number out of range", "decode the report", []byte(strings.Replace(string(mutated(t, func(map[string]any) {})), `"head_runs":5`, `"head_runs":1e400`, 1))},
		{"string for number", "decode the report", mutated(t, func(m map[string]any) { metric0(m)["head_median"] = "80" })},
		{"negative count", "head_runs: -1 is outside", mutated(t, func(m map[string]any) { m["head_runs"] = -1 })},
		{"long name", "benchmark: is 101 characters long", mutated(t, func(m map[string]any) { m["benchmark"] = strings.Repeat("é", 101) })},
		{"empty name", "benchmark: is empty", mutated(t, func(m map[string]any) { m["benchmark"] = " " })},
		{"control character", "notes[0]: contains the control character U+0007", mutated(t, func(m map[string]any) { m["notes"] = []any{"ding\a"} })},
		{"bidi override", "warnings[0]: contains the control character U+202E", mutated(t, func(m map[string]any) { m["warnings"] = []any{"abc\u202edef"} })},
		{"too many notes", "notes: has 101 entries", mutated(t, func(m map[string]any) {
			notes := make([]any, 101)
			for i := range notes {
				notes[i] = "n"
			}
			m["notes"] = notes
		})},
		{"failed above requests", "steps[0].failed: 5 failed of 4 requests", mutated(t, func(m map[string]any) {
			st := m["steps"].([]any)[0].(map[string]any)
			st["requests"], st["failed"] = 4, 5
		})},
		{"bad error class", `errors[0].class: "oops"`, mutated(t, func(m map[string]any) { m["errors"].([]any)[0].(map[string]any)["class"] = "oops" })},
		{"pass despite a regressed metric", `verdict: "pass" disagrees`, mutated(t, func(m map[string]any) { m["verdict"] = "pass" })},
		{"regressions not matching", "regressions: [\"latency_p95_ms\"] does not list", mutated(t, func(m map[string]any) { m["regressions"] = []any{"latency_p95_ms"} })},
		{"target log with a line break", "target_log.head: contains a line break (U+000A)", mutated(t, func(m map[string]any) {
			m["target_log"] = map[string]any{"head": "/tmp/x.log\n::error::pwned"}
		})},
		{"target log that is an address", `target_log.base: "https://evil.example/x.log" is an address`, mutated(t, func(m map[string]any) {
			m["target_log"] = map[string]any{"base": "https://evil.example/x.log", "head": "/tmp/h.log"}
		})},
		{"target log naming no file", "target_log: names no file", mutated(t, func(m map[string]any) { m["target_log"] = map[string]any{} })},
		{"overlong target log", "target_log.head: is 1001 characters long", mutated(t, func(m map[string]any) {
			m["target_log"] = map[string]any{"head": "/" + strings.Repeat("a", 1000)}
		})},
		{"unknown target log field", `unknown field "side"`, mutated(t, func(m map[string]any) { m["target_log"] = map[string]any{"side": "x"} })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(bytes.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadJSON error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A report exactly at the size limit is read; one byte more is not.
func TestReadJSONSizeLimitBoundary(t *testing.T) {
	t.Parallel()
	doc := mutated(t, func(map[string]any) {})
	pad := MaxJSONBytes - len(doc)
	atLimit := append(bytes.Repeat([]byte(" "), pad), doc...)
	if _, err := ReadJSON(bytes.NewReader(atLimit)); err != nil {
		t.Errorf("a report of exactly %d bytes: %v", len(atLimit), err)
	}
	if _, err := ReadJSON(bytes.NewReader(append([]byte(" "), atLimit...))); err == nil {
		t.Error("a report one byte over the limit was accepted")
	}
}

// Every problem is reported, each with its path.
func TestReadJSONReportsAllProblems(t *testing.T) {
	t.Parallel()
	data := mutated(t, func(m map[string]any) {
		m["mode"] = "yolo"
		metric0(m)["change_unit"] = "x"
	})
	_, err := ReadJSON(bytes.NewReader(data))
	if err == nil || !strings.Contains(err.Error(), `mode: "yolo"`) || !strings.Contains(err.Error(), `metrics[0].change_unit: "x"`) {
		t.Errorf("error = %v, want both problems", err)
	}
}

// A paired A/B report (its detectable effects found by the pairs' formula)
// reads back too: `tailgate comment` posts the reports of mode ab.
func TestReadJSONReadsAnABReport(t *testing.T) {
	t.Parallel()
	base, head := fixtureRuns(8, 1, false), fixtureRuns(8, 0.9, true)
	in := Input{Name: "api", Mode: "ab", BaselineSource: "the base target, measured in this job",
		Verdict: gate.Judge(base, head, gate.Policy{SameJob: true, Paired: true}), Head: head}
	if len(in.Verdict.Detect) == 0 || in.Verdict.Detect[0].Method != stats.MethodPairs {
		t.Fatalf("not a paired comparison: %+v", in.Verdict.Detect)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(bytes.NewReader(js.Bytes()))
	if err != nil {
		t.Fatalf("ReadJSON of an A/B report: %v", err)
	}
	if Markdown(got) != Markdown(in) {
		t.Errorf("the A/B report renders differently after the round trip")
	}
}

// Names (the benchmark, labels, steps) hold one line of printable
// characters: a hostile artifact's name with a line break, a bidi or a
// zero-width character is refused with a one-line reason naming the field
// and the character, never printing it.
func TestReadJSONRefusesUnprintableNames(t *testing.T) {
	t.Parallel()
	step0 := func(m map[string]any) map[string]any { return m["steps"].([]any)[0].(map[string]any) }
	for _, tc := range []struct {
		name, want string
		edit       func(m map[string]any)
	}{
		{"benchmark with a line break", "benchmark: contains a line break (U+000A) at character 5", func(m map[string]any) {
			m["benchmark"] = "demo\n::warning title=injected::pwned\n::stop-commands::pwn"
		}},
		{"benchmark with a carriage return", "benchmark: contains a line break (U+000D)", func(m map[string]any) { m["benchmark"] = "demo\r::error::pwned" }},
		{"benchmark with a tab", "benchmark: contains the control character U+0009", func(m map[string]any) { m["benchmark"] = "de\tmo" }},
		{"benchmark with a line separator", "benchmark: contains a line break (U+2028)", func(m map[string]any) { m["benchmark"] = "demo\u2028::error::x" }},
		{"label with a bidi override", "metrics[0].label: contains the bidirectional control U+202E", func(m map[string]any) { metric0(m)["label"] = "iter\u202es/" }},
		{"label with a zero-width space", "metrics[0].label: contains the invisible format character U+200B", func(m map[string]any) { metric0(m)["label"] = "iter\u200bations/s" }},
		{"detectable label with NEL", "detectable[0].label: contains a line break (U+0085)", func(m map[string]any) {
			m["detectable"].([]any)[0].(map[string]any)["label"] = "x\u0085::error::pwned"
		}},
		{"step name with a line break", "steps[0].name: contains a line break (U+000A)", func(m map[string]any) { step0(m)["name"] = "get\n::error::x" }},
		{"error step with a BOM", "errors[0].step: contains the invisible format character U+FEFF", func(m map[string]any) {
			m["errors"].([]any)[0].(map[string]any)["step"] = "\ufeffget order"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(bytes.NewReader(mutated(t, tc.edit)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadJSON error = %v, want one containing %q", err, tc.want)
			}
			if strings.ContainsAny(err.Error(), "\r\n\u0085\u2028\u202e\u200b\ufeff\t") {
				t.Errorf("the reason is not one printable line: %q", err.Error())
			}
		})
	}
	// Several problems are still one line.
	_, err := ReadJSON(bytes.NewReader(mutated(t, func(m map[string]any) {
		m["benchmark"], m["mode"] = "a\nb", "yolo"
	})))
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "; ") {
		t.Errorf("two problems: %q, want them on one line", err)
	}
}

// A sequential A/B report reads back with its pair counts, stopping
// reason and the metrics' bounds, whether the job was done or not (a
// verdict taken while undecided has no bounds yet: they are left out).
func TestReadJSONReadsASequentialReport(t *testing.T) {
	t.Parallel()
	base, head := fixtureRuns(8, 1, false), fixtureRuns(8, 0.97, true)
	for _, pairs := range []int{2, 8} {
		in := Input{Name: "api", Mode: "ab", Verdict: gate.JudgeSequential(base[:pairs], head[:pairs], gate.Policy{Alpha: 0.05}, stats.SeqDesign{}, false, gate.SeqOptions{}), Head: head}
		var js bytes.Buffer
		if err := WriteJSON(&js, in); err != nil {
			t.Fatal(err)
		}
		got, err := ReadJSON(bytes.NewReader(js.Bytes()))
		if err != nil {
			t.Fatalf("%d pairs: ReadJSON of a sequential report: %v", pairs, err)
		}
		s, want := got.Verdict.Sequential, *in.Verdict.Sequential
		if want.Reason, want.Why = StopReason(&want), (gate.Why{}); s == nil || !reflect.DeepEqual(*s, want) {
			t.Fatalf("%d pairs: sequential %+v read back as %+v", pairs, in.Verdict.Sequential, s)
		}
		if Markdown(got) != Markdown(in) {
			t.Errorf("%d pairs: the report renders differently after the round trip", pairs)
		}
		var again bytes.Buffer
		if err := WriteJSON(&again, got); err != nil || again.String() != js.String() {
			t.Errorf("%d pairs: WriteJSON(ReadJSON(x)) != x (%v)", pairs, err)
		}
		f := got.Verdict.Findings[0]
		if pairs == 2 && (!math.IsNaN(f.Lower) || f.Outcome != gate.Undecided || strings.Contains(js.String(), `"lower"`)) {
			t.Errorf("2 pairs: %+v; want undecided without bounds", f)
		}
		if pairs == 8 && (math.IsNaN(f.Lower) || math.IsNaN(f.Estimate) || f.DecidedAt == 0 || !strings.Contains(js.String(), `"decided_at"`)) {
			t.Errorf("8 pairs: %+v; want the bounds and the deciding look", f)
		}
	}
	bad := strings.Replace(sequentialJSON(t), `"min_pairs": 4`, `"min_pairs": 40`, 1)
	if _, err := ReadJSON(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "sequential.min_pairs") {
		t.Errorf("min_pairs above max_pairs: %v", err)
	}
}

func sequentialJSON(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sequential.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// What the writer writes, the reader of untrusted reports accepts: an
// error sample from a server (any length, any bytes: here 5,000
// characters with an ANSI escape and a bidirectional override) is clipped
// to the reader's bound and its control characters replaced, so that
// `tailgate comment` can post a report tailgate wrote.
func TestWriteJSONFitsWhatReadJSONAccepts(t *testing.T) {
	t.Parallel()
	in := cases()["regression"]
	head := slices.Clone(in.Head)
	head[0].Errors = []result.ErrorClass{{Class: result.ErrStatus, Step: "get order", Count: 2,
		Sample: "500 \x1b[31mboom\x1b[0m \u202e" + strings.Repeat("x", 5000)}}
	in.Head = head
	in.Notes = append(slices.Clone(in.Notes), strings.Repeat("n", 3000))
	var js bytes.Buffer
	if err := WriteJSON(&js, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(bytes.NewReader(js.Bytes()))
	if err != nil {
		t.Fatalf("ReadJSON refuses what WriteJSON wrote: %v", err)
	}
	sample := got.Head[0].Errors[0].Sample
	if n := utf8.RuneCountInString(sample); n != maxTextRunes || !strings.HasSuffix(sample, "…") {
		t.Errorf("the sample has %d characters, want it clipped to %d and marked", n, maxTextRunes)
	}
	if strings.ContainsAny(sample, "\x1b\u202e") || !strings.HasPrefix(sample, "500 \uFFFD[31mboom") {
		t.Errorf("the sample keeps its control characters: %q", sample[:40])
	}
	if in.Notes[len(in.Notes)-1] != strings.Repeat("n", 3000) {
		t.Error("WriteJSON changed the Input's notes")
	}
}
