package jmeter

import (
	"fmt"

	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// dateLayouts are the timestamp formats read besides epoch milliseconds
// (JMeter's default). jmeter.save.saveservice.timestamp_format takes any
// SimpleDateFormat pattern; these are the common ones. Go's parser also
// accepts a fractional second after the seconds, so "…ss.SSS" is covered.
// Day-first and month-first forms like 05/12/2019 are ambiguous and not read.
var dateLayouts = []string{
	"2006/01/02 15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05",
	"2006/01/02 15:04:05 Z0700",
	"2006-01-02 15:04:05 Z0700",
	"02.01.2006 15:04:05",
}

const layoutsHelp = "epoch milliseconds or a date like 2019/12/05 12:37:24, 2019-12-05 12:37:24.123 or 2019-12-05T12:37:24.123Z; " +
	"set jmeter.save.saveservice.timestamp_format=ms for new runs"

// timeParser reads one file's timestamps; the first timestamp fixes the
// form for the rest of the file.
type timeParser struct {
	layout string // "" until the first timestamp; "ms" for epoch milliseconds
}

func (p *timeParser) parse(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if p.layout == "" {
		layout, ok := detectLayout(s)
		if !ok {
			return time.Time{}, fmt.Errorf("timestamp %q is not %s", s, layoutsHelp)
		}
		p.layout = layout
	}
	if p.layout == "ms" {
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil || ms < 0 {
			return time.Time{}, fmt.Errorf("timestamp %q is not epoch milliseconds like the rest of the file", s)
		}
		if err := importer.CheckEpochMillis(ms); err != nil {
			return time.Time{}, err
		}
		return time.UnixMilli(ms), nil
	}
	t, err := time.Parse(p.layout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q does not match the file's date format %q", s, p.layout)
	}
	return t, nil
}

// zoneless reports whether the file's dates carry no time zone (read as UTC).
func (p *timeParser) zoneless() bool {
	return p.layout != "" && p.layout != "ms" && !strings.Contains(p.layout, "Z07")
}

func detectLayout(s string) (string, bool) {
	if s != "" && strings.Trim(s, "0123456789") == "" {
		return "ms", true
	}
	for _, l := range dateLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return l, true
		}
	}
	return "", false
}

// looksLikeTimestamp reports whether s is a timestamp in a readable form.
func looksLikeTimestamp(s string) bool {
	_, ok := detectLayout(strings.TrimSpace(s))
	return ok
}
