package gatling

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Gatling runs on the JVM and is not installed here, so the binary logs of
// these tests are written by binWriter, which writes what Gatling's
// LogFileDataWriter and BufferedFileChannelWriter (gatling-core, 3.13 and
// later) write: the same record headers, field order, big-endian
// integers, strings as length, JVM bytes and coder, and the string cache
// that starts at index 1.
type binWriter struct {
	bytes.Buffer
	cache map[string]int32
}

func newBinWriter() *binWriter { return &binWriter{cache: map[string]int32{}} }

func (w *binWriter) int(v int32)  { _ = binary.Write(w, binary.BigEndian, v) }
func (w *binWriter) long(v int64) { _ = binary.Write(w, binary.BigEndian, v) }
func (w *binWriter) bool(v bool) {
	if v {
		w.WriteByte(1)
	} else {
		w.WriteByte(0)
	}
}

// string writes as the JVM holds a String: Latin-1 when every character
// fits a byte, else UTF-16 (little-endian, as on x86 and ARM).
func (w *binWriter) string(s string) {
	if s == "" {
		w.int(0)
		return
	}
	latin := true
	for _, r := range s {
		latin = latin && r < 0x100
	}
	var raw []byte
	if latin {
		for _, r := range s {
			raw = append(raw, byte(r))
		}
	} else {
		for _, u := range utf16.Encode([]rune(s)) {
			raw = binary.LittleEndian.AppendUint16(raw, u)
		}
	}
	w.int(int32(len(raw)))
	w.Write(raw)
	if latin {
		w.WriteByte(0)
	} else {
		w.WriteByte(1)
	}
}

func (w *binWriter) cached(s string) {
	if i, ok := w.cache[s]; ok {
		w.int(-i)
		return
	}
	i := int32(len(w.cache) + 1)
	w.cache[s] = i
	w.int(i)
	w.string(s)
}

func (w *binWriter) groups(g []string) {
	w.int(int32(len(g)))
	for _, s := range g {
		w.cached(s)
	}
}

const binStart = int64(1700000000000)

func (w *binWriter) run(version string) {
	w.WriteByte(recordRun)
	w.string(version)
	w.string("computerdatabase.BasicSimulation")
	w.long(binStart)
	w.string("")
	w.int(1)
	w.string("Users")
	w.int(1) // one assertion, pickled by boopickle: opaque bytes
	w.int(5)
	w.Write([]byte{1, 2, 3, 4, 5})
}

func (w *binWriter) user(start bool, at int32) {
	w.WriteByte(recordUser)
	w.int(0)
	w.bool(start)
	w.int(at)
}

func (w *binWriter) request(groups []string, name string, start, end int32, ok bool, msg string) {
	w.WriteByte(recordRequest)
	w.groups(groups)
	w.cached(name)
	w.int(start)
	w.int(end)
	w.bool(ok)
	w.cached(msg)
}

// sampleBinaryLog: 10 GET /items of 10…100 ms, two requests in the
// checkout group (one KO on its status, one refused), a group record and
// an error record, from 0.1 s to 9.1 s after the run starts.
func sampleBinaryLog() []byte {
	w := newBinWriter()
	w.run("3.13.5")
	w.user(true, 0)
	for i := int32(1); i <= 10; i++ {
		w.request(nil, "GET /items", 100*i, 100*i+10*i, true, "")
	}
	w.request([]string{"checkout"}, "POST /cart", 2000, 2050, false, "status.find.in([200, 209], 304), found 500")
	w.request([]string{"checkout"}, "créer 用户", 3000, 9100, false, "j.n.ConnectException: Connection refused")
	w.WriteByte(recordGroup)
	w.groups([]string{"checkout"})
	w.int(2000)
	w.int(9100)
	w.int(6150)
	w.bool(false)
	w.WriteByte(recordError)
	w.cached("Failed to build request: No attribute named 'id' is defined")
	w.int(9000)
	w.user(false, 9100)
	return w.Bytes()
}

func TestBinaryLog(t *testing.T) {
	t.Parallel()
	run, err := LogFormat{}.Import("simulation.log", bytes.NewReader(sampleBinaryLog()))
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests.Total != 12 || run.Requests.Failed != 2 {
		t.Fatalf("requests %+v, want 12 with 2 failed", run.Requests)
	}
	if want := time.UnixMilli(binStart + 100).UTC(); !run.Started.Equal(want) || run.Window != 9 {
		t.Errorf("started %v window %v, want %v and 9 s", run.Started, run.Window, want)
	}
	if got := strings.Join(importertest.StepNames(run), "|"); got != "GET /items|checkout / POST /cart|checkout / créer 用户" {
		t.Errorf("steps %s", got)
	}
	if p90 := run.Steps[0].Latency.Quantile(0.9); !importertest.Approx(float64(p90), float64(90*time.Millisecond), 0.002) {
		t.Errorf("GET /items p90 %v, want 90ms", p90)
	}
	importertest.WantMetric(t, run, result.LatencyMax, 6100)
	importertest.WantErrors(t, run, []result.ErrorClass{
		{Class: result.ErrStatus, Step: "checkout / POST /cart", Count: 1, Sample: "status.find.in([200, 209], 304), found 500"},
		{Class: result.ErrConnection, Step: "checkout / créer 用户", Count: 1, Sample: "j.n.ConnectException: Connection refused"},
	})
	for _, note := range []string{"1 GROUP records not counted", "1 ERROR records", "Gatling 3.13.5"} {
		if !importertest.HasNote(run, note) {
			t.Errorf("no note %q in %q", note, run.Notes)
		}
	}
}

func TestBinaryLogCut(t *testing.T) {
	t.Parallel()
	log := sampleBinaryLog()
	run, err := LogFormat{}.Import("simulation.log", bytes.NewReader(log[:len(log)-20]))
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests.Total != 12 || !importertest.HasNote(run, "the file was cut: record") {
		t.Errorf("requests %d, notes %q; want the 12 whole requests and a note of the cut", run.Requests.Total, run.Notes)
	}
}

func TestBinaryLogBadInput(t *testing.T) {
	t.Parallel()
	refBeforeGiven := newBinWriter()
	refBeforeGiven.run("3.13.5")
	refBeforeGiven.WriteByte(recordRequest)
	refBeforeGiven.int(0)
	refBeforeGiven.int(-7)
	hugeString := newBinWriter()
	hugeString.WriteByte(recordRun)
	hugeString.int(1 << 30) // a version string of 1 GiB, in a file of 5 bytes
	unknown := newBinWriter()
	unknown.run("3.13.5")
	unknown.WriteByte(9)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"ref", refBeforeGiven.Bytes(), "string 7, which was not given before"},
		{"huge", hugeString.Bytes(), "a string of 1073741824 bytes"},
		{"header", unknown.Bytes(), "unknown record header 9"},
		{"testdata/binary.log", importertest.Testdata(t, "binary.log"), "expected a simulation.log of Gatling 3.13 or later"},
	} {
		_, err := LogFormat{}.Import(tc.name, bytes.NewReader(tc.data))
		var syn *importer.SyntaxError
		if !errors.As(err, &syn) || !strings.Contains(syn.Msg, tc.want) {
			t.Errorf("%s: err = %v, want a syntax error saying %q", tc.name, err, tc.want)
		}
	}
}

// A binary log is detected by its run record, whatever the file is named
// (CI artifacts are renamed: run-42.log, gatling.bin), for each version
// that writes it; a file that only looks binary is not claimed.
func TestBinaryLogDetectedByContent(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"3.12.0", "3.13.5", "3.14.3", "3.14.0-M1"} {
		w := newBinWriter()
		w.run(version)
		w.user(true, 0)
		w.request(nil, "GET /items", 100, 110, true, "")
		for _, name := range []string{"run-42.log", "artifacts/gatling.bin", "simulation.log"} {
			f, err := importer.Detect(name, w.Bytes())
			if err != nil || f.Name() != "gatling-simulation-log" {
				t.Errorf("%s of Gatling %s: detected %v, %v", name, version, f, err)
				continue
			}
			run, err := f.Import(name, bytes.NewReader(w.Bytes()))
			if err != nil || run.Requests.Total != 1 {
				t.Errorf("%s of Gatling %s: %v, %+v", name, version, err, run)
			}
		}
	}
	notLogs := [][]byte{
		{0, 0, 0, 0, 0, 0, 0, 0},                                      // zeros
		{0, 0, 0, 4, 'a', 'b', 'c', 'd', 0},                           // a string that is no version
		[]byte("\x00\x00\x00\x063.13.5\x00\x00\x00\x00\x00"),          // no simulation class
		[]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03binarystuff"), // gzip
	}
	for _, head := range notLogs {
		if (LogFormat{}).Sniff("data.bin", head) {
			t.Errorf("claims %q", head)
		}
	}
}
