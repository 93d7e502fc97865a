package nexus

import "errors"

// ParseShowModule reads the module table of `show module`.
func ParseShowModule(text string) ([]Module, error) {
	return nil, errors.New("nexus: not implemented yet")
}

// FormatShowModule prints mods as `show module` does.
func FormatShowModule(mods []Module) string { return "" }
