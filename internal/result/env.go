package result

import "fmt"

// Fingerprint identifies the kind of machine: results from machines with
// different fingerprints are comparable only with care. Versions of Go and
// tailgate are left out: they change with the code under test.
func (e Env) Fingerprint() string {
	return fmt.Sprintf("%s; %d cores; %s/%s", e.CPUModel, e.Cores, e.OS, e.Arch)
}
