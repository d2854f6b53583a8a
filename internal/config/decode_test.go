package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/bounded"
)

// TestEveryFieldTypeIsSupported walks the Config type: every field must be
// a kind the decoder reads, so no YAML input can reach its internal error.
func TestEveryFieldTypeIsSupported(t *testing.T) {
	t.Parallel()
	var walk func(reflect.Type, string)
	seen := map[reflect.Type]bool{}
	walk = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		if reflect.PointerTo(typ).Implements(unmarshalerType) {
			return
		}
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(typ.Elem(), path)
		case reflect.Map:
			if typ.Key().Kind() != reflect.String {
				t.Errorf("%s: map key %s is not a string", path, typ.Key())
			}
			walk(typ.Elem(), path)
		case reflect.Struct:
			for i := range typ.NumField() {
				if f := typ.Field(i); f.IsExported() {
					walk(f.Type, path+"."+f.Name)
				}
			}
		case reflect.Interface, reflect.String, reflect.Int, reflect.Int64, reflect.Float64, reflect.Bool:
		default:
			t.Errorf("%s: kind %s is not decoded", path, typ.Kind())
		}
	}
	walk(reflect.TypeFor[Config](), "Config")
}

func TestAliasBombIsRefused(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("target: {url: 'http://127.0.0.1:1'}\nload: {rate: 1}\nscenarios:\n  - steps:\n      - path: /\n")
	b.WriteString("        json:\n          a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		prev := "*a" + string(rune('0'+i-1))
		b.WriteString("          a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" +
			strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	start := time.Now()
	ps := problemsOf(t, b.String())
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, "refusing to read further") {
		t.Errorf("got %v", &Error{ps})
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestDeepNestingIsRefused(t *testing.T) {
	t.Parallel()
	src := "target: {url: 'http://127.0.0.1:1'}\nload: {rate: 1}\nscenarios: [{steps: [{path: /, json: " +
		strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}]}]\n"
	ps := problemsOf(t, src)
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, "nested too deeply") {
		t.Errorf("got %v", &Error{ps})
	}
}

// Alias bombs (up to 180 KB) that a count of values alone let through,
// each refused fast with one problem naming the bound, the memory the
// parse allocates (runtime.MemStats) within a small multiple of
// maxExpanded: long keys nested by aliases (key paths of gigabytes), long
// values aliased in lists (text of gigabytes), and merge keys of merge
// keys (entries copied exponentially, no value read).
func TestAliasBombsAreBoundedInBytes(t *testing.T) {
	head := "target: {url: 'http://127.0.0.1:1'}\nload: {rate: 1}\n"
	longKeys := func() string {
		var b strings.Builder
		k := strings.Repeat("k", 1000)
		fmt.Fprintf(&b, "x-l0: &l0 {%s0: v, %s1: v}\n", k, k)
		for i := 1; i < 60; i++ {
			fmt.Fprintf(&b, "x-l%d: &l%d {%s%da: *l%d, %s%db: *l%d}\n", i, i, k, i, i-1, k, i, i-1)
		}
		return b.String() + head + "scenarios: [{steps: [{path: /, json: *l59}]}]\n"
	}
	longValues := func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "x-v: &v %s\n", strings.Repeat("x", 150_000))
		fmt.Fprintf(&b, "x-l1: &l1 [%s*v]\n", strings.Repeat("*v, ", 49))
		for i := 2; i < 8; i++ {
			fmt.Fprintf(&b, "x-l%d: &l%d [%s*l%d]\n", i, i, strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 49), i-1)
		}
		return b.String() + head + "scenarios: [{steps: [{path: /, json: *l7}]}]\n"
	}
	merges := func() string {
		var b strings.Builder
		b.WriteString("x-m0: &m0 {a0: 1, a1: 2}\n")
		for i := 1; i < 40; i++ {
			fmt.Fprintf(&b, "x-m%d: &m%d {<<: [*m%d, *m%d, *m%d, *m%d]}\n", i, i, i-1, i-1, i-1, i-1)
		}
		return b.String() + "target: {url: 'http://127.0.0.1:1', <<: *m39}\nload: {rate: 1}\nscenarios: [{steps: [{path: /}]}]\n"
	}
	for name, tc := range map[string]struct {
		src  string
		want string
	}{
		"long keys":   {longKeys(), "a key path longer than 1024 bytes"},
		"long values": {longValues(), "the file expands to more than 16 MiB"},
		"merge keys":  {merges(), "the file expands to more than 16 MiB"},
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			ps := problemsOf(t, tc.src)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if len(ps) != 1 || !strings.Contains(ps[0].Msg, tc.want) || len(ps[0].Msg) > 300 {
				t.Errorf("%d bytes: got %.500v, want one short problem saying %q", len(tc.src), (&Error{ps}).Error(), tc.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*maxExpanded {
				t.Errorf("parsing allocated %d MiB, more than 4× the %d MiB bound", alloc>>20, maxExpanded>>20)
			} else {
				t.Logf("%d KB file: %v, %d MiB allocated", len(tc.src)/1000, elapsed.Round(time.Millisecond), alloc>>20)
			}
			if elapsed > 20*time.Second {
				t.Errorf("took %v", elapsed)
			}
		})
	}
}

// A benchmark file past MaxFileSize is refused before it is read whole,
// naming the file and the bound.
func TestLoadFileRefusesAFileTooLarge(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tailgate.yml")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 100<<20); err != nil { // sparse: 100 MB of nothing
		t.Fatal(err)
	}
	_, err := LoadFile(path)
	if !bounded.IsTooLarge(err) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "4 MiB") {
		t.Errorf("LoadFile of 100 MB: %v, want a too-large error naming the file and the 4 MiB bound", err)
	}
}

// A benchmark file handed over as bytes (read at a commit) past
// MaxFileSize is one problem, not parsed.
func TestParseRefusesDataTooLarge(t *testing.T) {
	t.Parallel()
	data := []byte("name: x\n# " + strings.Repeat("x", MaxFileSize) + "\n")
	_, err := Parse("tailgate.yml at 3a9c5e7f1b2d", data)
	if err == nil || !strings.Contains(err.Error(), "larger than the 4 MiB tailgate reads of a benchmark file") {
		t.Errorf("Parse of %d bytes: %v", len(data), err)
	}
}
