package nxsim

import (
	"github.com/rocefabric/roce/nexus"
)

func (sw *Switch) showVersion() string {
	sw.mu.Lock() // an upgrade changes the version (upgrade.go)
	defer sw.mu.Unlock()
	return nexus.FormatShowVersionReport(sw.versionReport())
}

func (sw *Switch) showModule() string { return nexus.FormatShowModule(sw.modules) }

// showPFC prints `show interface priority-flow-control` for every port.
func (sw *Switch) showPFC() string {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return nexus.FormatShowPFC(sw.pfcRows(sw.cfg))
}

// showQueuing prints `show queuing interface [LIST]`; no list means every
// port.
func (sw *Switch) showQueuing(list string) (string, error) {
	names := sw.interfaces
	if list != "" {
		var err error
		if names, err = sw.expandInterfaces(list); err != nil {
			return "", err
		}
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	bits := noDropCoS(sw.cfg)
	ifs := make([]nexus.QueuingInterface, 0, len(names))
	for _, n := range names {
		ifs = append(ifs, sw.queuing(sw.cfg, n, bits))
	}
	return nexus.FormatShowQueuing(ifs), nil
}
