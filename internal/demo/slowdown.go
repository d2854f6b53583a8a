package demo

import (
	"fmt"
	"strconv"
	"strings"
)

// maxSlowdown bounds the knob: ten times the base work is plenty to show a
// regression, and a larger value is more likely a typo ("30" for "30%").
const maxSlowdown = 10

// ParseSlowdown reads the --slowdown flag: a percentage ("30%") or a
// fraction ("0.3"); both mean 30 % more CPU work per request.
func ParseSlowdown(s string) (float64, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return 0, fmt.Errorf("slowdown is empty: want a percentage like \"30%%\" or a fraction like \"0.3\"")
	}
	percent := strings.HasSuffix(text, "%")
	num := strings.TrimSpace(strings.TrimSuffix(text, "%"))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("slowdown %q is not a number: want a percentage like \"30%%\" or a fraction like \"0.3\"", s)
	}
	if percent {
		v /= 100
	}
	switch {
	case v != v: // NaN
		return 0, fmt.Errorf("slowdown %q is not a number", s)
	case v < 0:
		return 0, fmt.Errorf("slowdown %q is negative: the knob only adds work", s)
	case v > maxSlowdown && !percent:
		return 0, fmt.Errorf("slowdown %q is a fraction, i.e. %.0f%% more work (maximum %d%%): did you mean \"%s%%\"?", s, v*100, maxSlowdown*100, num)
	case v > maxSlowdown:
		return 0, fmt.Errorf("slowdown %q is above the maximum of %d%%", s, maxSlowdown*100)
	}
	return v, nil
}
