package nexus

import (
	"errors"

	"github.com/rocefabric/roce/policies"
)

// DefaultPrefix is the name prefix of the objects we own.
const DefaultPrefix = "ROCE-"

// Intent is what one switch must carry.
type Intent struct {
	Platform   Platform
	Classes    []*policies.Lossless // what this switch must carry (Fabric.LosslessFor)
	Interfaces []string             // managed ports, canonical "Ethernet1/1"
	FCoE       bool
	Prefix     string   // "ROCE-" when empty
	Modules    []Module // 7000: for the F/M refusal
}

// Render returns the desired config: current with our objects replaced by
// what the intent needs; foreign objects untouched.
func Render(in Intent, current *Config) (*Config, error) {
	return nil, errors.New("nexus: Render not implemented yet")
}
