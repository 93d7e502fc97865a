package nexus

import (
	"errors"

	"github.com/rocefabric/roce/plan"
)

// Diff returns per-resource changes and the whole ordered command script a
// switch accepts (configuration-mode lines, without "configure terminal" and
// "end").
func Diff(current, desired *Config, p Platform) ([]plan.Change, []string, error) {
	return nil, nil, errors.New("nexus: Diff not implemented yet")
}
