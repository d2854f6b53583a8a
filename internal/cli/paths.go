package cli

import (
	"path/filepath"
	"strings"

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

// demoBaselinePath is the per-user, per-machine place of the demo
// baseline of one benchmark definition (hash: config.DefinitionHash):
// each definition (another --duration, --warmup or --rate) keeps its own,
// so that trying one does not replace the baseline of another.
func demoBaselinePath(getenv func(string) string, hash string) string {
	name := "demo-baseline-" + shortHash(hash) + ".json"
	dir := getenv("XDG_CACHE_HOME")
	if dir == "" {
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".cache")
		}
	}
	if dir == "" {
		return filepath.Join("baselines", name)
	}
	return filepath.Join(dir, "tailgate", name)
}

// shortHash is the first 12 hex digits of a "sha256:<hex>" hash: enough
// to tell this machine's few demo definitions apart.
func shortHash(hash string) string {
	hex := strings.TrimPrefix(hash, "sha256:")
	if len(hex) > 12 {
		hex = hex[:12]
	}
	return hex
}
