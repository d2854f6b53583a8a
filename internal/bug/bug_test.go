package bug

import (
	"strings"
	"testing"
)

func crash() {
	var m map[string]int
	m["x"] = 1 // a nil map: a runtime panic
}

// The site of a runtime panic is the function that made it, with its file
// from the module's root, not the runtime's frames nor the recovering one.
func TestSiteNamesThePanickingFunction(t *testing.T) {
	site := func() (s string) {
		defer func() {
			if recover() != nil {
				s = Site()
			}
		}()
		crash()
		return ""
	}()
	if !strings.Contains(site, "bug.crash at internal/bug/bug_test.go:") {
		t.Errorf("Site() = %q, want the crash function and its file", site)
	}
}
