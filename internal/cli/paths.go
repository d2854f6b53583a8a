package cli

import (
	"path/filepath"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// baselinePath is where a benchmark's baseline lives unless a flag says
// otherwise: the config's gate.baseline, else baselines/<name>.json.
func baselinePath(flag string, cfg *config.Config, benchmark string) string {
	switch {
	case flag != "":
		return flag
	case cfg != nil && cfg.Gate.Baseline != "":
		return cfg.Gate.Baseline
	default:
		return "baselines/" + benchmark + ".json"
	}
}

// demoBaselinePath is the per-user, per-machine place of the demo baseline.
func demoBaselinePath(getenv func(string) string) string {
	dir := getenv("XDG_CACHE_HOME")
	if dir == "" {
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".cache")
		}
	}
	if dir == "" {
		return filepath.Join("baselines", "demo.json")
	}
	return filepath.Join(dir, "tailgate", "demo-baseline.json")
}
