package plan

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// The values -log-level and -log-format take, for error messages.
const (
	logLevelNames  = "debug, info, warn, error"
	logFormatNames = "text, json"
)

// NewLogger builds the CLI logger from the -log-level and -log-format
// flags. An unknown value is an error naming the flag and what it takes.
func NewLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lv = slog.LevelDebug
	case "info", "":
		lv = slog.LevelInfo
	case "warn", "warning":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		return nil, fmt.Errorf("-log-level %q is not a log level; use one of %s", level, logLevelNames)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("-log-format %q is not a log format; use one of %s", format, logFormatNames)
}
