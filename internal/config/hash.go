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

// Definition is everything that defines the measurement: not the target,
// the name, the gate policy, the build, the path nor any number of samples,
// which do not change what one sample measures.
type Definition struct {
	Version   int        `yaml:"version"`
	Seed      int64      `yaml:"seed"`
	Dataset   Dataset    `yaml:"dataset"`
	Drain     *Drain     `yaml:"drain"`
	Load      Load       `yaml:"load"` // Runs is 0: a number of samples
	Scenarios []Scenario `yaml:"scenarios"`
	// Setup and Feed are left out when unset (older definitions keep
	// their hash); the feed counts by its content.
	Setup *Setup `json:",omitempty" yaml:"setup"`
	Feed  *Feed  `json:",omitempty" yaml:"feed"`
}

func (c *Config) Definition() Definition {
	load := c.Load
	load.Runs = 0
	if load.CookieJar() {
		load.Cookies = nil // the default written out is the default
	}
	return Definition{
		Version: definitionVersion, Seed: c.Seed, Dataset: c.Dataset, Drain: c.Drain,
		Load: load, Scenarios: c.Scenarios, Setup: c.Setup, Feed: c.Feed,
	}
}

// DefinitionHash is "sha256:<hex>" of the definition's values, defaults
// applied: key order, comments, formatting or a default written out leave it.
func (c *Config) DefinitionHash() string {
	def := c.Definition()
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
