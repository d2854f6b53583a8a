package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse holds the config parser to its contract on any bytes: no
// panic; either a config or an *Error whose every problem names the file
// and says what is wrong; and the same bytes parse the same way twice.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(examplesDir, "*.yml"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(demoConfig))
	f.Add([]byte("target: {url: http://127.0.0.1:1}\nload: {rate: 10/s}\n"))
	f.Add([]byte("&a [*a, *a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.yml", data)
		if err == nil {
			if cfg == nil {
				t.Fatal("nil config without an error")
			}
			if _, again := Parse("fuzz.yml", data); again != nil {
				t.Fatalf("parsed once, then failed: %v", again)
			}
			return
		}
		var cerr *Error
		if !errors.As(err, &cerr) || len(cerr.Problems) == 0 {
			t.Fatalf("error %T without problems: %v", err, err)
		}
		for _, p := range cerr.Problems {
			if p.File != "fuzz.yml" || strings.TrimSpace(p.Msg) == "" {
				t.Fatalf("problem without file or message: %+v", p)
			}
		}
	})
}
