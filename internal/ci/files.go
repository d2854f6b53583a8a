package ci

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// commandFiles are the variables naming the runner's file commands. A
// child never gets them but can find the files in RUNNER_TEMP, so each is
// checked against what tailgate left there before each write and at the
// end of the step.
var commandFiles = []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE"}

// maxCommandFile bounds what tailgate reads back of one command file: the
// runner makes them fresh for each step, and the summary alone may hold up
// to SummaryLimit.
const maxCommandFile = 4 * SummaryLimit

// ErrTampered reports that a process other than tailgate changed one of
// the runner's command files during the step.
var ErrTampered = errors.New("the runner's command files were changed by another process")

var errNotRegular = errors.New("not a regular file")

// commandFile is one sealed command file: what it holds as tailgate left it.
type commandFile struct {
	name    string // the variable, e.g. GITHUB_OUTPUT
	path    string
	exists  bool
	content []byte
}

// Seal records the runner's command files before tailgate starts its
// first child; from then on every file command first restores any file
// another process changed (see Tampered).
func (r *Runtime) Seal() error {
	r.sealed = nil
	for _, name := range commandFiles {
		path := r.getenv(name)
		if path == "" {
			continue
		}
		data, exists, err := readCommandFile(path)
		if errors.Is(err, errNotRegular) {
			continue // a device or pipe (GITHUB_OUTPUT=/dev/null outside a runner): nothing to restore
		}
		if err != nil {
			return fmt.Errorf("reading the runner's %s before starting any process: %w", name, err)
		}
		r.sealed = append(r.sealed, commandFile{name: name, path: path, exists: exists, content: data})
	}
	return nil
}

// Tampered reports, after Seal, which command files another process
// changed (each was restored); nil when none was.
func (r *Runtime) Tampered() error {
	if err := r.checkFiles(); err != nil {
		return err
	}
	if len(r.tampered) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s changed since tailgate started its first child (a build, target or command of the benchmark wrote them); "+
		"tailgate restored what it had written, and its outputs and summary are its own", ErrTampered, strings.Join(r.tampered, ", "))
}

// checkFiles compares each sealed file with what tailgate left in it and
// restores those that differ, noting them in r.tampered.
func (r *Runtime) checkFiles() error {
	for i := range r.sealed {
		f := &r.sealed[i]
		data, exists, err := readCommandFile(f.path)
		if err == nil && exists == f.exists && bytes.Equal(data, f.content) {
			continue
		}
		if !slices.Contains(r.tampered, f.name) {
			r.tampered = append(r.tampered, f.name)
		}
		if err := restoreCommandFile(*f); err != nil {
			return fmt.Errorf("%w: restoring %s: %v", ErrTampered, f.name, err)
		}
	}
	return nil
}

// appendCommandFile appends data to the file the variable name points at,
// after checking the sealed files, and remembers what it wrote.
func (r *Runtime) appendCommandFile(name string, data []byte) error {
	path := r.getenv(name)
	if path == "" {
		return fmt.Errorf("%s is unset: %w", name, ErrNotInStep)
	}
	if err := r.checkFiles(); err != nil {
		return err
	}
	file, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, werr := file.Write(data)
	if err := errors.Join(werr, file.Close()); err != nil {
		return err
	}
	for i := range r.sealed {
		if f := &r.sealed[i]; f.path == path {
			f.content, f.exists = append(f.content, data...), true
		}
	}
	return nil
}

// readCommandFile reads a command file, refusing anything but a regular
// file (a symbolic link a child put in its place included) and anything
// past maxCommandFile. A file that does not exist is no error.
func readCommandFile(path string) (data []byte, exists bool, err error) {
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() {
		return nil, true, fmt.Errorf("%s: %w", path, errNotRegular)
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, true, err
	}
	defer file.Close()
	data, err = io.ReadAll(io.LimitReader(file, maxCommandFile+1))
	if err == nil && len(data) > maxCommandFile {
		err = fmt.Errorf("%s is larger than %d bytes", path, maxCommandFile)
	}
	return data, true, err
}

// restoreCommandFile puts back what tailgate left in f: written beside it
// and renamed over it, which also replaces a link or directory a child put
// in its place; removed when it did not exist.
func restoreCommandFile(f commandFile) error {
	if !f.exists {
		return os.RemoveAll(f.path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".tailgate-restore-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(f.content)
	err = errors.Join(werr, tmp.Chmod(0o644), tmp.Close())
	if st, lerr := os.Lstat(f.path); err == nil && lerr == nil && st.IsDir() {
		err = os.RemoveAll(f.path)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// heredoc is one output in the runner's multi-line form, NAME<<DELIMITER,
// the value, then DELIMITER on its own line, with a random delimiter new
// for each output that nothing written before can guess.
func heredoc(name, value string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	delim := "tailgate_" + hex.EncodeToString(b[:])
	if strings.Contains(value, delim) {
		return "", fmt.Errorf("the value contains the delimiter %s", delim)
	}
	return name + "<<" + delim + "\n" + value + "\n" + delim + "\n", nil
}
