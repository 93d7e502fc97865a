package nexus

// CLIError is what the NX-OS CLI answers to a line it refuses. The simulator
// prints it verbatim: for "invalid" and "incomplete" a caret line under Pos,
// then the message; for "error" the message alone.
type CLIError struct {
	Kind    string // "invalid" | "incomplete" | "error"
	Pos     int    // 0-based column of the caret within the line as typed
	Message string
}

// Error returns the message the switch prints.
func (e *CLIError) Error() string { return e.Message }

const (
	msgInvalid    = "% Invalid command at '^' marker."
	msgIncomplete = "% Incomplete command at '^' marker."
)

func invalidAt(pos int) *CLIError {
	return &CLIError{Kind: "invalid", Pos: pos, Message: msgInvalid}
}

func incompleteAt(pos int) *CLIError {
	return &CLIError{Kind: "incomplete", Pos: pos, Message: msgIncomplete}
}

func cliErrorf(msg string) *CLIError {
	return &CLIError{Kind: "error", Message: msg}
}
