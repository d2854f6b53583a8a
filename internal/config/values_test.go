package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	good := map[string]time.Duration{
		"10s": 10 * time.Second, "500ms": 500 * time.Millisecond, "2m": 2 * time.Minute,
		"1m30s": 90 * time.Second, "0": 0, "0s": 0,
	}
	for in, want := range good {
		got, err := ParseDuration(in)
		if err != nil || got.D() != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"10 seconds": "invalid duration",
		"10":         "invalid duration",
		"-1s":        "negative duration",
		"":           "invalid duration",
		"fast":       "invalid duration",
	}
	for in, want := range bad {
		_, err := ParseDuration(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "10s, 500ms") {
			t.Errorf("ParseDuration(%q) error = %v; want %q and the expected form", in, err, want)
		}
	}
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	good := map[string]float64{
		"50/s": 50, "3000/m": 50, "7200/h": 2, "50": 50, "0.5/s": 0.5, " 10 / s ": 10, "1e3/s": 1000,
	}
	for in, want := range good {
		got, err := ParseRate(in)
		if err != nil || got.PerSecond != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v/s", in, got, err, want)
		}
	}
	bad := map[string]string{
		"fast":  "invalid rate",
		"50/d":  "unknown unit",
		"50/ms": "unknown unit",
		"0/s":   "not positive",
		"-5":    "not positive",
		"NaN/s": "invalid rate",
		"Inf":   "invalid rate",
		"/s":    "invalid rate",
	}
	for in, want := range bad {
		_, err := ParseRate(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "50/s") {
			t.Errorf("ParseRate(%q) error = %v; want %q and the expected form", in, err, want)
		}
	}
}

func TestRateIntervalAndString(t *testing.T) {
	t.Parallel()
	r := Rate{PerSecond: 4}
	if r.Interval() != 250*time.Millisecond || r.String() != "4/s" {
		t.Errorf("Rate{4}: interval %v, string %q", r.Interval(), r.String())
	}
	if (Rate{}).Interval() != 0 || !(Rate{}).IsZero() {
		t.Error("zero rate should have no interval and be zero")
	}
}

// valuesDoc exercises the custom types through yaml.v3 directly.
type valuesDoc struct {
	D    Duration   `yaml:"d"`
	R    Rate       `yaml:"r"`
	Zero Rate       `yaml:"zero"`
	List Command    `yaml:"list"`
	Sh   Command    `yaml:"sh"`
	None *Command   `yaml:"none"`
	Ds   []Duration `yaml:"ds"`
}

func TestValuesRoundTrip(t *testing.T) {
	t.Parallel()
	in := valuesDoc{
		D: Duration(1500 * time.Millisecond), R: Rate{PerSecond: 1.0 / 3},
		List: Command{Args: []string{"./server", "--port", "8080"}}, Sh: Command{Shell: "make run"},
		Ds: []Duration{0, Duration(time.Hour)},
	}
	out, err := yaml.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"d: 1.5s", "zero: null", "- ./server", "sh: make run", "- 1h0m0s"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("marshalled YAML lacks %q:\n%s", want, out)
		}
	}
	var back valuesDoc
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatalf("unmarshal %s: %v", out, err)
	}
	if !reflect.DeepEqual(back, in) {
		t.Errorf("round trip: got %+v, want %+v", back, in)
	}
}

func TestCommandUnmarshal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		yaml    string
		want    Command
		wantErr string
	}{
		{`[./server, --port, 8080]`, Command{Args: []string{"./server", "--port", "8080"}}, ""},
		{`"./server --port 8080 >log"`, Command{Shell: "./server --port 8080 >log"}, ""},
		{`[]`, Command{}, "empty command"},
		{`""`, Command{}, "empty command"},
		{`[./x, [a]]`, Command{}, "argument 1: expected a string"},
		{`{run: x}`, Command{}, "expected a command"},
		{`42`, Command{}, "expected a command"},
	}
	for _, tc := range cases {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(tc.yaml), &n); err != nil {
			t.Fatal(err)
		}
		var got Command
		err := got.UnmarshalYAML(n.Content[0])
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.yaml, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.yaml, got, err, tc.want)
		}
	}
}

func TestCommandString(t *testing.T) {
	t.Parallel()
	c := Command{Args: []string{"./server", "--name", "my service", ""}}
	if got, want := c.String(), `./server --name "my service" ""`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}
