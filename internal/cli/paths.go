package cli

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// baselinePath is where a benchmark's baseline lives unless a flag says
// otherwise: the config's gate.baseline, else baselines/<name>.json.
func baselinePath(flag string, cfg *config.Config, benchmark string) string {
	if cfg != nil {
		flag = cmp.Or(flag, cfg.Gate.Baseline)
	}
	return cmp.Or(flag, "baselines/"+benchmark+".json")
}

// demoBaselinePath is the demo baseline of one benchmark definition (config.DefinitionHash): trying another --duration,
// --warmup or --rate does not replace the baseline of another.
func demoBaselinePath(getenv func(string) string, hash string) string {
	return filepath.Join(cmp.Or(cacheDir(getenv), "baselines"), "demo-baseline-"+shortHash(hash)+".json")
}

// DefaultNoisePath is the noise file an A/B job keeps when the benchmark names none, so that later jobs on a machine
// pool the noise of earlier ones; "" where there is no cache directory (the job then keeps none).
func DefaultNoisePath(getenv func(string) string) string {
	if dir := cacheDir(getenv); dir != "" {
		return filepath.Join(dir, "noise.json")
	}
	return ""
}

// cacheDir is tailgate's directory in the user's cache ($XDG_CACHE_HOME,
// else ~/.cache; a relative value is ignored, as XDG says), else "".
func cacheDir(getenv func(string) string) string {
	if dir := getenv("XDG_CACHE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "tailgate")
	}
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, ".cache", "tailgate")
	}
	return ""
}

// shortHash is the first 12 hex digits of a "sha256:<hex>" hash: enough
// to tell this machine's few demo definitions apart.
func shortHash(hash string) string {
	hex := strings.TrimPrefix(hash, "sha256:")
	return hex[:min(len(hex), 12)]
}
