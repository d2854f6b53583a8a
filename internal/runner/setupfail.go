package runner

import (
	"errors"
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/load"
)

// withOutput adds to a failed setup step where the target's output is: a
// login that times out or is refused is the service's to explain, and its
// log is where it says why. Other errors are returned as they are.
func (t *running) withOutput(err error) error {
	var setup *load.SetupError
	if t.logPath == "" || !errors.As(err, &setup) {
		return err
	}
	return fmt.Errorf("%w; the %s output is in %s", err, t.what(), t.logPath)
}

// what names the target in a message: "base target's", or "target's".
func (t *running) what() string {
	if t.label == "" {
		return "target's"
	}
	return t.label + " target's"
}
