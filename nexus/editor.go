package nexus

import "fmt"

// Editor applies configuration-mode lines to a Config exactly as the NX-OS
// CLI would, tracking the sub-mode. It is the model-level apply used by tests
// and the grammar engine of nexus/nxsim.
type Editor struct {
	cfg      *Config
	p        Platform
	modules  []Module
	inConfig bool
	mode     string
	obj      *Object      // the object the sub-mode edits
	cls      *PolicyClass // the policy class the class sub-mode edits
}

// NewEditor returns an Editor in "config" mode (as after `configure
// terminal`) that edits cfg in place.
func NewEditor(cfg *Config, p Platform, modules []Module) *Editor {
	return &Editor{cfg: cfg, p: p, modules: modules, inConfig: true, mode: "config"}
}

// Mode returns the prompt's mode suffix, e.g. "config-sys-qos".
func (e *Editor) Mode() string { return e.mode }

// InConfig is false after `end`, or `exit` from top-level config mode.
func (e *Editor) InConfig() bool { return e.inConfig }

// Line applies one line typed at the current mode.
func (e *Editor) Line(line string) error {
	return e.line(line)
}

// ApplyCommands runs lines through an Editor starting in "config" mode; the
// error names the 1-based line and the line.
func ApplyCommands(cfg *Config, p Platform, modules []Module, lines []string) error {
	e := NewEditor(cfg, p, modules)
	for i, l := range lines {
		if err := e.Line(l); err != nil {
			return fmt.Errorf("command %d %q (mode %s): %w", i+1, l, e.Mode(), err)
		}
	}
	return nil
}
