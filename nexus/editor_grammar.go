package nexus

func (e *Editor) line(line string) error {
	return cliErrorf("ERROR: not implemented yet")
}
