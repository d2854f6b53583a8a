package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"gopkg.in/yaml.v3"
)

// definitionVersion is bumped when the canonical encoding changes, so that
// old and new hashes never compare equal by accident. Version 2 leaves out
// load.runs and adds load.phases.
const definitionVersion = 2

// definition is everything that defines the measurement. The target (the
// demo starts it on a random port), the name, the gate policy, the build
// command, the file path and every number of samples (load.runs, the A/B
// pairs) are left out: they do not change what one sample measures.
type definition struct {
	Version   int
	Seed      int64
	Dataset   Dataset
	Drain     *Drain
	Load      Load
	Scenarios []Scenario
	// Setup and Feed are left out when unset, so that a definition
	// without them hashes as it did before they existed. The feed counts
	// by its content: the rows are the dataset, not the file's name.
	Setup *Setup `json:",omitempty"`
	Feed  *Feed  `json:",omitempty"`
}

// DefinitionHash identifies the benchmark definition as "sha256:<hex>".
// It hashes the values (durations in nanoseconds, rates per second, maps in
// key order), so key order, comments and formatting do not change it, and
// neither does writing out a default. Hash a config returned by Parse or
// Load: it has its defaults applied.
func (c *Config) DefinitionHash() string {
	def := definition{
		Version:   definitionVersion,
		Seed:      c.Seed,
		Dataset:   c.Dataset,
		Drain:     c.Drain,
		Load:      c.Load,
		Scenarios: c.Scenarios,
		Setup:     c.Setup,
		Feed:      c.Feed,
	}
	data, err := json.Marshal(def)
	if err != nil {
		// Only a config built in code can hold values JSON cannot encode
		// (Parse produces plain ones); YAML encodes those deterministically.
		if data, err = yaml.Marshal(def); err != nil {
			data = []byte("unencodable: " + err.Error())
		}
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
