package verify

import (
	"encoding/json"
	"fmt"
	"io"
)

// Formats accepted by Render.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatJUnit    = "junit"
	FormatMarkdown = "markdown"
)

// Render writes r in one of the formats.
func Render(w io.Writer, r *Report, format string) error {
	switch format {
	case FormatText, "":
		return RenderText(w, r)
	case FormatJSON:
		return RenderJSON(w, r)
	case FormatJUnit:
		return RenderJUnit(w, r)
	case FormatMarkdown, "md":
		return RenderMarkdown(w, r)
	}
	return fmt.Errorf("unknown report format %q (want text, json, junit or markdown)", format)
}

// RenderJSON writes the versioned JSON report (schema in docs/verify.md).
func RenderJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing JSON report: %w", err)
	}
	return nil
}
