package nxsim

// The startup configuration: what the switch would load after a reload.
// It starts as the configuration the switch booted with and changes only on
// `copy running-config startup-config`. `show startup-config [SECTION]`
// prints it with the header NX-OS puts there — !Command, !Time, then
// "!Startup config saved at:" — before the version line (docs/nxos.md,
// "show startup-config").

// StartupConfig returns the saved configuration text (without the header
// `show startup-config` adds). A simulated reload (upgrade.go) can start
// the running configuration from it.
func (sw *Switch) StartupConfig() string {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.startup.String()
}

// saveStartup is `copy running-config startup-config`.
func (sw *Switch) saveStartup() string {
	sw.mu.Lock()
	sw.startup, sw.savedAt = sw.cfg.Clone(), sw.now()
	sw.mu.Unlock()
	return "[########################################] 100%\nCopy complete."
}
