package runner

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// DetectEnv describes this machine and build for the result file.
func DetectEnv(version string) result.Env {
	return result.Env{CPUModel: cpuModel(), Cores: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(), TailgateVersion: version}
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
