package importer_test

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// writers render one list of request latencies (whole milliseconds, one
// request a second apart from t0) in every format that carries
// per-request latencies.
var writers = map[string]func(ms []int, t0 time.Time) []byte{
	"jmeter-jtl-csv": func(ms []int, t0 time.Time) []byte {
		var b strings.Builder
		b.WriteString("timeStamp,elapsed,label,responseCode,responseMessage,threadName,success\n")
		for i, v := range ms {
			fmt.Fprintf(&b, "%d,%d,GET /,200,OK,Users 1-1,true\n", t0.Add(time.Duration(i)*time.Second).UnixMilli(), v)
		}
		return []byte(b.String())
	},
	"jmeter-jtl-xml": func(ms []int, t0 time.Time) []byte {
		var b strings.Builder
		b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testResults version=\"1.2\">\n")
		for i, v := range ms {
			fmt.Fprintf(&b, "<httpSample t=\"%d\" ts=\"%d\" s=\"true\" lb=\"GET /\" rc=\"200\" rm=\"OK\" tn=\"Users 1-1\"/>\n", v, t0.Add(time.Duration(i)*time.Second).UnixMilli())
		}
		b.WriteString("</testResults>\n")
		return []byte(b.String())
	},
	"gatling-simulation-log": func(ms []int, t0 time.Time) []byte {
		var b strings.Builder
		fmt.Fprintf(&b, "RUN\tdemo.Sim\tsim\t%d\t \t3.9.5\n", t0.UnixMilli())
		for i, v := range ms {
			start := t0.Add(time.Duration(i) * time.Second).UnixMilli()
			fmt.Fprintf(&b, "REQUEST\t\tGET /\t%d\t%d\tOK\t \n", start, start+int64(v))
		}
		return []byte(b.String())
	},
	"k6-ndjson": func(ms []int, t0 time.Time) []byte {
		var b strings.Builder
		b.WriteString(`{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time"},"metric":"http_req_duration"}` + "\n")
		for i, v := range ms {
			fmt.Fprintf(&b, `{"metric":"http_req_duration","type":"Point","data":{"time":%q,"value":%d,"tags":{"expected_response":"true","method":"GET","name":"/","status":"200"}}}`+"\n",
				t0.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano), v)
		}
		return []byte(b.String())
	},
	"k6-csv": func(ms []int, t0 time.Time) []byte {
		var b strings.Builder
		b.WriteString("metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n")
		for i, v := range ms {
			fmt.Fprintf(&b, "http_req_duration,%d,%d.000000,,,,true,,GET,/,HTTP/1.1,default,,200,,,http://127.0.0.1/,,\n", t0.Add(time.Duration(i)*time.Second).Unix(), v)
		}
		return []byte(b.String())
	},
	"vegeta-results": func(ms []int, t0 time.Time) []byte {
		var b strings.Builder
		for i, v := range ms {
			fmt.Fprintf(&b, "%d,200,%d,0,3,,,t,%d,GET,http://127.0.0.1/,\n", t0.Add(time.Duration(i)*time.Second).UnixNano(), int64(v)*1e6, i)
		}
		return []byte(b.String())
	},
	"ab-gnuplot": func(ms []int, t0 time.Time) []byte {
		var b strings.Builder
		b.WriteString("starttime\tseconds\tctime\tdtime\tttime\twait\n")
		for i, v := range ms {
			at := t0.Add(time.Duration(i) * time.Second)
			fmt.Fprintf(&b, "%s\t%d\t0\t%d\t%d\t%d\n", at.Format("Mon Jan 02 15:04:05 2006"), at.Unix(), v, v, v)
		}
		return []byte(b.String())
	},
	"hey-csv": func(ms []int, t0 time.Time) []byte {
		var b strings.Builder
		b.WriteString("response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n")
		for i, v := range ms {
			fmt.Fprintf(&b, "%.4f,0.0000,0.0000,0.0000,%.4f,0.0000,200,%d.0000\n", float64(v)/1000, float64(v)/1000, i)
		}
		return []byte(b.String())
	},
}

// Result has the name, and the fields gob needs, of vegeta's Result.
type Result struct {
	Code      uint16
	Timestamp time.Time
	Latency   time.Duration
	Method    string
	URL       string
}

func vegetaGob(t *testing.T, ms []int, t0 time.Time) []byte {
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	for i, v := range ms {
		r := Result{Code: 200, Timestamp: t0.Add(time.Duration(i) * time.Second), Latency: time.Duration(v) * time.Millisecond, Method: "GET", URL: "http://127.0.0.1/"}
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

var percentileKeys = []string{result.LatencyP50, result.LatencyP90, result.LatencyP95, result.LatencyP99, result.LatencyMax}

// TestEveryRawFormatGivesTheEnginesPercentiles: for one set of latencies,
// the engine's histogram path and every importer that reads per-request
// latencies give the same percentiles, and they are the nearest-rank
// values of the sorted latencies (to histogram precision).
func TestEveryRawFormatGivesTheEnginesPercentiles(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 71))
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{71, 1000} {
		ms := make([]int, n)
		for i := range ms {
			ms[i] = 1 + int(rng.ExpFloat64()*40)
		}
		ms[n/2] = 900 // one slow request: the tail a small sample must not hide

		engine := result.Run{Latency: hist.New(), Window: float64(n), Model: "closed"}
		for _, v := range ms {
			engine.Latency.Record(time.Duration(v) * time.Millisecond)
		}
		engine.Summarize()
		sorted := append([]int(nil), ms...)
		sort.Ints(sorted)
		for i, key := range percentileKeys {
			q := []float64{0.5, 0.9, 0.95, 0.99, 1}[i]
			want := float64(sorted[hist.Rank(q, int64(n))-1])
			if got := engine.Metrics[key]; got < want || got > want*1.001+0.001 {
				t.Errorf("n=%d engine %s = %v, nearest rank gives %v", n, key, got, want)
			}
		}

		dir := t.TempDir()
		files := map[string][]byte{"vegeta-results (gob)": vegetaGob(t, ms, t0)}
		for format, write := range writers {
			files[format] = write(ms, t0)
		}
		if len(files) < 9 {
			t.Fatalf("%d formats", len(files))
		}
		for label, data := range files {
			format, _, _ := strings.Cut(label, " ")
			path := filepath.Join(dir, strings.ReplaceAll(label, " ", "_"))
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			im, err := importer.Read(path, "")
			if err != nil {
				t.Errorf("n=%d %s: %v", n, label, err)
				continue
			}
			if im.Format != format || len(im.Runs) != 1 || im.Runs[0].Requests.Total != int64(n) {
				t.Errorf("n=%d %s: detected %s, %d runs", n, label, im.Format, len(im.Runs))
				continue
			}
			for _, key := range percentileKeys {
				if got, want := im.Runs[0].Metrics[key], engine.Metrics[key]; got != want {
					t.Errorf("n=%d %s: %s = %v, the engine gives %v", n, label, key, got, want)
				}
			}
		}
	}
}
