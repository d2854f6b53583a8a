package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// durationForm and rateForm end every duration or rate error.
const (
	durationForm = "expected a duration such as 10s, 500ms, 2m or 1m30s"
	rateForm     = "expected a positive number per second, minute or hour, such as 50/s, 3000/m, 10/h, or a bare number meaning per second"
)

// ParseDuration reads a non-negative duration written as "10s", "500ms",
// "2m" or "1m30s". A bare number other than 0 is refused: its unit would be
// a guess.
func ParseDuration(s string) (Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: %s", s, durationForm)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q: %s", s, durationForm)
	}
	return Duration(d), nil
}

func (d Duration) String() string { return time.Duration(d).String() }

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	return scalar(n, "a duration such as 10s or 500ms", ParseDuration, d)
}

// scalar reads *dst from a scalar node by parse; want says what it is.
func scalar[T any](n *yaml.Node, want string, parse func(string) (T, error), dst *T) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected %s, got %s", want, describe(n))
	}
	v, err := parse(n.Value)
	if err == nil {
		*dst = v
	}
	return err
}

// MarshalYAML writes the duration as text that ParseDuration reads back.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

var rateUnits = map[string]float64{"s": 1, "m": 60, "h": 3600}

// ParseRate reads a rate above 0: "50/s", "3000/m", "10/h" or "50" (per second).
func ParseRate(s string) (Rate, error) {
	text := strings.TrimSpace(s)
	num, unit, hasUnit := strings.Cut(text, "/")
	seconds := 1.0
	if hasUnit {
		var ok bool
		if seconds, ok = rateUnits[strings.TrimSpace(unit)]; !ok {
			return Rate{}, fmt.Errorf("invalid rate %q: unknown unit %q: %s", s, unit, rateForm)
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return Rate{}, fmt.Errorf("invalid rate %q: %s", s, rateForm)
	}
	if n <= 0 {
		return Rate{}, fmt.Errorf("rate %q is not positive: %s", s, rateForm)
	}
	return Rate{PerSecond: n / seconds}, nil
}

func (r Rate) IsZero() bool { return r.PerSecond == 0 }

func (r Rate) String() string { return strconv.FormatFloat(r.PerSecond, 'g', -1, 64) + "/s" }

// Interval is the time between two events at this rate (0 for no rate).
func (r Rate) Interval() time.Duration {
	if r.PerSecond <= 0 {
		return 0
	}
	return time.Duration(float64(time.Second) / r.PerSecond)
}

func (r *Rate) UnmarshalYAML(n *yaml.Node) error {
	return scalar(n, "a rate such as 50/s", ParseRate, r)
}

// MarshalYAML writes the rate per second, an unset one as null (read back unset).
func (r Rate) MarshalYAML() (any, error) {
	if r.IsZero() {
		return nil, nil
	}
	return r.String(), nil
}

func (c Command) IsZero() bool { return len(c.Args) == 0 && c.Shell == "" }

// String is the command as a user would type it (for messages).
func (c Command) String() string {
	if c.Shell != "" {
		return c.Shell
	}
	quoted := make([]string, len(c.Args))
	for i, a := range c.Args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`") {
			a = strconv.Quote(a)
		}
		quoted[i] = a
	}
	return strings.Join(quoted, " ")
}

var errEmptyCommand = errors.New("empty command: expected a list such as [./server, --port, \"8080\"] or a shell string")

// UnmarshalYAML reads a list of strings (Args) or a string (Shell, for sh -c).
func (c *Command) UnmarshalYAML(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == strTag:
		if strings.TrimSpace(n.Value) == "" {
			return errEmptyCommand
		}
		*c = Command{Shell: n.Value}
		return nil
	case n.Kind == yaml.SequenceNode:
		args := make([]string, 0, len(n.Content))
		for i, item := range n.Content {
			if item.Kind != yaml.ScalarNode || item.ShortTag() == nullTag {
				return fmt.Errorf("argument %d: expected a string, got %s", i, describe(item))
			}
			args = append(args, item.Value)
		}
		if len(args) == 0 || args[0] == "" {
			return errEmptyCommand
		}
		*c = Command{Args: args}
		return nil
	}
	return fmt.Errorf("expected a command (a list of strings or a shell string), got %s", describe(n))
}

func (c Command) MarshalYAML() (any, error) {
	if c.Shell != "" {
		return c.Shell, nil
	}
	if len(c.Args) == 0 {
		return nil, nil
	}
	return c.Args, nil
}
