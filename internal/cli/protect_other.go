//go:build !linux

package cli

// ProtectProcess does nothing where there is no prctl: see
// protect_linux.go and docs/github-action.md for what that leaves.
func ProtectProcess() error { return nil }
