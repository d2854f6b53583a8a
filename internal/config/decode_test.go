package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
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
