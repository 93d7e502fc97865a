package nexus

import "errors"

// ParseShowVersion reads `show version`.
func ParseShowVersion(text string) (Version, error) {
	return Version{}, errors.New("nexus: not implemented yet")
}

// FormatShowVersion prints v as `show version` does.
func FormatShowVersion(v Version) string { return "" }
