package nics

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/platforms"
)

// ManagedFiles is the allow-list of files roce reads or writes on a host
// (paths relative to the host root). The agent refuses a request naming
// any other file, so a tampered plan or request can't make it write
// elsewhere as root. Edit backups (BackupPath) are derived from these.
func ManagedFiles() []string {
	return []string{FileMV2, FileMVAPICH2, FileOpenMPI, FileUCX, FileNCCL, FileMemlock, ModprobeFile, FileDCBUdevRule}
}

// IsManagedFile reports whether p is one of the files roce manages.
func IsManagedFile(p string) bool {
	if isDCBPersistFile(p) { // persist.go: /etc/roce/dcb/<netdev>.dcb
		return true
	}
	for _, f := range ManagedFiles() {
		if p == f {
			return true
		}
	}
	return false
}

// ErrNotManaged is wrapped by every CheckManaged refusal.
var ErrNotManaged = errors.New("not managed by roce")

// CheckNetdevName and CheckRDMADeviceName validate names that become
// /sys/class/net/<netdev>, /sys/class/infiniband/<dev> and
// /sys/kernel/config/rdma_cm/<dev> paths: the same rules validate applies
// (platforms), so a name validate passes is one the agent takes, and the
// agent's refusal is ErrNotManaged.
func CheckNetdevName(n string) error     { return notManaged(platforms.CheckNetdevName(n)) }
func CheckRDMADeviceName(d string) error { return notManaged(platforms.CheckRDMADeviceName(d)) }

func notManaged(err error) error {
	if err != nil {
		return fmt.Errorf("%w: %w", err, ErrNotManaged)
	}
	return nil
}

func checkOptionalDevice(d string) error {
	if d == "" {
		return nil // resolved on the host
	}
	return CheckRDMADeviceName(d)
}

func checkPort(p int) error {
	if p < 0 || p > 255 {
		return fmt.Errorf("RDMA port %d is outside 1-255: %w", p, ErrNotManaged)
	}
	return nil
}

// CheckNICRef validates a counters or probe NIC reference.
func CheckNICRef(r NICRef) error {
	if err := CheckNetdevName(r.Netdev); err != nil {
		return err
	}
	if err := checkOptionalDevice(r.RDMADevice); err != nil {
		return err
	}
	return checkPort(r.Port)
}

// CheckManaged refuses a host state that names anything outside what roce
// manages: a file not in ManagedFiles or whose owned content is not what
// roce writes there (CheckFileContent), or a netdev, VLAN or RDMA device
// name that would put a sysfs/configfs path outside the device's own
// directory. The agent runs it on every read and apply request before
// touching the host; the error names the offending path or name.
func CheckManaged(st *HostState) error {
	if st == nil {
		return nil
	}
	for _, n := range st.NICs {
		if err := CheckNetdevName(n.Netdev); err != nil {
			return fmt.Errorf("nic: %w", err)
		}
		if err := checkOptionalDevice(n.RDMADevice); err != nil {
			return fmt.Errorf("nic %s: %w", n.Netdev, err)
		}
		if err := checkPort(n.Port); err != nil {
			return fmt.Errorf("nic %s: %w", n.Netdev, err)
		}
		if v := n.VLAN; v != nil {
			if err := CheckNetdevName(v.Name); err != nil {
				return fmt.Errorf("nic %s vlan: %w", n.Netdev, err)
			}
			if v.Parent != n.Netdev {
				return fmt.Errorf("nic %s: VLAN %s has parent %q, not the NIC: %w", n.Netdev, v.Name, v.Parent, ErrNotManaged)
			}
		}
	}
	for _, c := range st.RDMACM {
		if err := checkOptionalDevice(c.Device); err != nil {
			return fmt.Errorf("rdma_cm: %w", err)
		}
		if c.Netdev != "" {
			if err := CheckNetdevName(c.Netdev); err != nil {
				return fmt.Errorf("rdma_cm: %w", err)
			}
		}
		if err := checkPort(c.Port); err != nil {
			return fmt.Errorf("rdma_cm %s: %w", c.Device, err)
		}
	}
	seenFile := map[string]bool{}
	for _, f := range st.Files {
		if !IsManagedFile(f.Path) {
			return fmt.Errorf("file %q is %w: roce writes only %s", f.Path, ErrNotManaged, strings.Join(ManagedFiles(), ", "))
		}
		if seenFile[f.Path] {
			return fmt.Errorf("file %s is named twice: %w", f.Path, ErrNotManaged)
		}
		seenFile[f.Path] = true
		for _, e := range f.Entries {
			if e.GID == nil {
				continue
			}
			g := e.GID
			for _, nd := range []string{g.Netdev, g.Parent} {
				if nd == "" {
					continue
				}
				if err := CheckNetdevName(nd); err != nil {
					return fmt.Errorf("%s %s gid: %w", f.Path, e.Key, err)
				}
			}
			if err := checkOptionalDevice(g.Device); err != nil {
				return fmt.Errorf("%s %s gid: %w", f.Path, e.Key, err)
			}
			if err := checkPort(g.Port); err != nil {
				return fmt.Errorf("%s %s gid: %w", f.Path, e.Key, err)
			}
		}
		if err := CheckFileContent(f); err != nil {
			return err
		}
	}
	return nil
}

// CheckResolved reports whether resolved — a saved plan's host payload —
// is what Resolve makes of desired (nics.Desired of the policy now) on
// some host. The host facts a payload may legitimately carry (RDMA device
// per netdev, exact MTU at or above the floor, rdma_cm method, GID
// indexes) are taken from the payload and checked for form; everything
// else must be exactly what the policy renders. A payload edited after
// the plan (another file path, other values) fails.
func CheckResolved(desired, resolved *HostState) error {
	if desired == nil || resolved == nil {
		return errors.New("no desired or resolved state")
	}
	if err := CheckManaged(resolved); err != nil {
		return err
	}
	want, _, err := resolveWith(context.Background(), desired, payloadFacts{resolved})
	if err != nil {
		return err
	}
	a, err := json.Marshal(want)
	if err != nil {
		return err
	}
	b, err := json.Marshal(resolved)
	if err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("payload differs from the policy's host state in %s", firstDifference(want, resolved))
	}
	return nil
}

// firstDifference names the first top-level item where two states differ.
func firstDifference(a, b *HostState) string {
	eq := func(x, y any) bool {
		bx, _ := json.Marshal(x)
		by, _ := json.Marshal(y)
		return bytes.Equal(bx, by)
	}
	for i := 0; i < len(a.NICs) || i < len(b.NICs); i++ {
		if i >= len(a.NICs) || i >= len(b.NICs) || !eq(a.NICs[i], b.NICs[i]) {
			return fmt.Sprintf("nics[%d]", i)
		}
	}
	for i := 0; i < len(a.RDMACM) || i < len(b.RDMACM); i++ {
		if i >= len(a.RDMACM) || i >= len(b.RDMACM) || !eq(a.RDMACM[i], b.RDMACM[i]) {
			return fmt.Sprintf("rdma_cm[%d]", i)
		}
	}
	for i := 0; i < len(a.Files) || i < len(b.Files); i++ {
		switch {
		case i >= len(b.Files):
			return "files: " + a.Files[i].Path + " missing"
		case i >= len(a.Files):
			return "files: " + b.Files[i].Path + " not in the policy"
		case !eq(a.Files[i], b.Files[i]):
			if a.Files[i].Path != b.Files[i].Path {
				return "files: " + b.Files[i].Path + " where the policy has " + a.Files[i].Path
			}
			return "files: " + b.Files[i].Path
		}
	}
	return "its encoding"
}

// payloadFacts answers Resolve's questions from a resolved payload.
type payloadFacts struct{ p *HostState }

func (f payloadFacts) nic(netdev string) (*NICState, error) {
	for i := range f.p.NICs {
		if f.p.NICs[i].Netdev == netdev {
			return &f.p.NICs[i], nil
		}
	}
	return nil, fmt.Errorf("payload has no nic %s", netdev)
}

func (f payloadFacts) rdmaDevice(netdev string) (string, error) {
	n, err := f.nic(netdev)
	if err != nil {
		return "", err
	}
	if err := CheckRDMADeviceName(n.RDMADevice); err != nil {
		return "", fmt.Errorf("payload nic %s: %w", netdev, err)
	}
	return n.RDMADevice, nil
}

func (f payloadFacts) currentMTU(_ context.Context, netdev string) (int, bool, error) {
	n, err := f.nic(netdev)
	if err != nil {
		return 0, false, err
	}
	return n.MTU, true, nil
}

func (f payloadFacts) rdmacmMethod(m string) (string, error) {
	switch m {
	case RDMACMConfigfs, RDMACMDefPrec2SL:
		return m, nil
	case "", RDMACMAuto:
		for _, c := range f.p.RDMACM {
			if c.Method == RDMACMConfigfs || c.Method == RDMACMDefPrec2SL {
				return c.Method, nil
			}
		}
		return "", errors.New("payload resolves no rdma_cm method")
	}
	return "", fmt.Errorf("rdma_cm method %q: want configfs, def_prec2sl or auto", m)
}

func (f payloadFacts) gidIndex(file, key string, _ GIDRef) (int, error) {
	for _, fs := range f.p.Files {
		if fs.Path != file {
			continue
		}
		for _, e := range fs.Entries {
			if e.Key != key {
				continue
			}
			if e.Value == "" {
				return 0, errors.New("pending")
			}
			n, err := strconv.Atoi(e.Value)
			if err != nil || n < 0 || n > 255 || strconv.Itoa(n) != e.Value {
				return 0, fmt.Errorf("GID index %q is not 0-255", e.Value)
			}
			return n, nil
		}
	}
	return 0, errors.New("pending")
}
