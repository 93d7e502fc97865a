package nics

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LabMarker is the file under a lab host's root that selects the lab
// backends. It is only honoured when the root is not "/".
const LabMarker = ".roce-lab"

// Backend names reported in facts.
const (
	BackendNetlink = "netlink"
	BackendLab     = "lab-emulated"
)

// System is one host as the agent sees it: a root for every file, sysfs and
// configfs path, and the backends that talk to the kernel.
type System struct {
	Root string
	Lab  bool
	// EmulatedLinks: a lab root whose parent netdevs are emulated too
	// (LabLinksMarker); no real interface is touched.
	EmulatedLinks bool
	DCB           DCB
	Links         Links

	// root is the host root, held open by holdRoot for one call.
	root *os.File
}

// Open returns the System for root ("" = "/"). The lab backends are chosen
// only when root is not "/" and <root>/.roce-lab exists, so a real host can
// never be switched to emulation by accident.
func Open(root string) (*System, error) {
	if root == "" {
		root = "/"
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("host root %q: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("host root %q: %w (create it or fix --root)", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("host root %q is not a directory", root)
	}
	return openSystem(abs, netlinkLinks{}, HostNetns{}), nil
}

// openSystem picks the backends for the host tree at abs. real is the
// netlink layer and ns says which network namespace this thread is in;
// tests inject both. A lab root whose netdevs are real (veths in the
// namespace roce-lab up made for the host) reaches real only through
// labNetnsGuard: every call first proves that this thread runs inside
// that namespace, so the lab never falls back to this machine's own
// interfaces.
func openSystem(abs string, real Links, ns NetnsProbe) *System {
	s := &System{Root: abs}
	s.Lab = IsLab(abs)
	nl := real
	if s.Lab {
		if IsEmulatedLinks(abs) {
			// Lab-only: the parent netdevs are emulated too (LabLinksMarker).
			s.EmulatedLinks = true
			nl = emulatedNetdevs{root: abs}
		} else {
			nl = labNetnsGuard{root: abs, real: real, ns: ns}
		}
		s.DCB = &labDCB{root: abs, links: nl}
		s.Links = &labLinks{root: abs, real: nl}
	} else {
		s.DCB = netlinkDCB{}
		s.Links = nl
	}
	return s
}

// IsLab reports whether root selects the lab backends.
func IsLab(root string) bool {
	if root == "" || filepath.Clean(root) == "/" {
		return false
	}
	st, err := os.Stat(filepath.Join(root, LabMarker))
	return err == nil && st.Mode().IsRegular()
}

// Path joins p (an absolute host path like /etc/nccl.conf) under the root.
func (s *System) Path(p string) string {
	return filepath.Join(s.Root, filepath.FromSlash(strings.TrimPrefix(p, "/")))
}

// readTrim reads a small sysfs/configfs/proc file and trims whitespace.
func (s *System) readTrim(p string) (string, error) {
	b, err := os.ReadFile(s.Path(p))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// Backends describes the backends in use, for facts and plan notes.
func (s *System) Backends() map[string]string {
	if s.Lab {
		m := map[string]string{
			"backend.dcb":     BackendLab,
			"backend.vlan":    BackendLab,
			"backend.rdma":    BackendLab,
			"backend.netlink": BackendNetlink + " (MTU, addresses)",
		}
		if s.EmulatedLinks {
			m["backend.netlink"] = BackendLab + " (MTU, addresses; no real interface)"
		}
		return m
	}
	return map[string]string{"backend.dcb": BackendNetlink, "backend.vlan": BackendNetlink, "backend.rdma": "sysfs/configfs"}
}
