package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocefabric/roce/nics"
)

// StatusFormatVersion is the version of the Status JSON document
// (docs/lab-status.md); it changes only when a field changes meaning or
// goes away.
const StatusFormatVersion = 1

// Status is what `roce-lab status` reports about a running lab: every
// simulated device, where it listens, what it runs and its state.
type Status struct {
	FormatVersion int       `json:"format_version"`
	ID            string    `json:"id"`
	PID           int       `json:"pid"`
	Dir           string    `json:"dir"`
	StartedAt     time.Time `json:"started_at"`
	GeneratedAt   time.Time `json:"generated_at"`
	// Hosts is how the lab's hosts run: "namespaces", or simulated with
	// the reason.
	Hosts   string         `json:"hosts"`
	VarFile string         `json:"var_file"`
	Devices []DeviceStatus `json:"devices"`
}

// DeviceStatus is one simulated switch or host.
type DeviceStatus struct {
	// Target is the address roce-plan -target takes: switch.NAME, host.NAME.
	Target string `json:"target"`
	// Platform: nexus5000, nexus7000, "gnmi (PROFILE)", or host.
	Platform string `json:"platform"`
	// Address: where a switch listens (host:port); a host's NIC addresses.
	Address string `json:"address"`
	// Version: the NX-OS release, the gNMI target's software version, or
	// a host's NIC firmware. `roce-lab upgrade` changes it.
	Version string `json:"version"`
	// State: "up" for a simulator that accepts connections; a host's is
	// "up (namespace NAME)" or "up (simulated)"; "down: why" otherwise.
	State string `json:"state"`
	// BootedAt: when an NX-OS simulator last (re)started (its `show
	// version` uptime counts from it), or when roce-lab upgrade last
	// reloaded a host's driver; omitted for a host never reloaded and for
	// gNMI targets.
	BootedAt *time.Time `json:"booted_at,omitempty"`
	// LastReset: why, once the device has been reset by roce-lab upgrade
	// ("Disruptive upgrade" on NX-OS, as its show version says).
	LastReset string `json:"last_reset,omitempty"`
}

// Status describes the running lab now.
func (l *Lab) Status() Status {
	st := Status{FormatVersion: StatusFormatVersion, ID: l.ID, PID: os.Getpid(), Dir: l.Dir,
		StartedAt: l.started, GeneratedAt: time.Now().UTC().Truncate(time.Second), VarFile: l.VarFile()}
	if abs, err := filepath.Abs(l.Dir); err == nil {
		st.Dir = abs
		st.VarFile = filepath.Join(abs, StateDir, "lab.vars")
	}
	st.Hosts = "namespaces"
	if l.hosts == nil || l.hosts.bridge == "" {
		st.Hosts = "simulated: no namespaces (not root); links, DCB and RDMA emulated"
	}
	for _, name := range sortedNames(l.Switches) {
		d := DeviceStatus{Target: "switch." + name, Platform: l.platform[name], Address: l.Switches[name]}
		switch {
		case l.Sims[name] != nil:
			d.Version = l.Sims[name].Switch().Version()
			at, why := l.Sims[name].Switch().LastReset()
			at = at.UTC().Truncate(time.Second)
			d.BootedAt, d.LastReset = &at, why
		case l.Targets[name] != nil:
			d.Version = l.gnmiVer[name]
			if d.Version == "" {
				d.Version = "(simulator default)"
			}
		}
		d.State = dialState(l.Switches[name])
		st.Devices = append(st.Devices, d)
	}
	if l.hosts != nil {
		names := make([]string, 0, len(l.hosts.roots))
		for h := range l.hosts.roots {
			names = append(names, h)
		}
		sort.Strings(names)
		for _, h := range names {
			d := DeviceStatus{Target: "host." + h, Platform: "host", Address: l.hostAddrs[h], Version: hostFirmware(l.hosts.roots[h])}
			switch ns := l.Netns[h]; {
			case ns != "":
				d.State = "up (namespace " + ns + ")"
			default:
				d.State = "up (simulated)"
			}
			l.mu.Lock()
			if r, ok := l.hostResets[h]; ok {
				at := r.at.UTC().Truncate(time.Second)
				d.BootedAt, d.LastReset = &at, r.reason
			}
			l.mu.Unlock()
			if _, err := os.Stat(l.hosts.roots[h]); err != nil {
				d.State = "down: its tree is gone (" + err.Error() + ")"
			}
			st.Devices = append(st.Devices, d)
		}
	}
	return st
}

// dialState says whether a simulator accepts connections.
func dialState(addr string) string {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "down: " + err.Error()
	}
	c.Close()
	return "up"
}

// hostFirmware is the NIC firmware of a lab host's first RDMA device (what
// `roce-lab upgrade host.NAME FIRMWARE` changes).
func hostFirmware(root string) string {
	devs, err := nics.LabRDMADevices(root)
	if err != nil || len(devs) == 0 {
		return "(unknown)"
	}
	var fws []string
	for _, d := range devs {
		b, err := os.ReadFile(filepath.Join(root, "sys", "class", "infiniband", d, "fw_ver"))
		if err != nil {
			continue
		}
		fws = append(fws, d+" "+strings.TrimSpace(string(b)))
	}
	if len(fws) == 0 {
		return "(unknown)"
	}
	return strings.Join(fws, ", ")
}

// RequestStatus asks the lab running from dir for its status over the
// control socket.
func RequestStatus(ctx context.Context, dir string) (*Status, error) {
	c, err := dialControl(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := json.NewEncoder(c).Encode(UpgradeRequest{Op: OpStatus}); err != nil {
		return nil, fmt.Errorf("asking the lab for its status: %w", err)
	}
	var st Status
	if err := json.NewDecoder(c).Decode(&st); err != nil {
		return nil, fmt.Errorf("reading the lab's status: %w", err)
	}
	if st.FormatVersion != StatusFormatVersion {
		return nil, fmt.Errorf("the lab running from %s answers status format %d, this roce-lab reads %d: stop it with the roce-lab that started it (roce-lab down %s) and start it again", dir, st.FormatVersion, StatusFormatVersion, dir)
	}
	return &st, nil
}

// WriteText prints the status as a table, for a person.
func (st *Status) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Lab %s runs (pid %d) from %s since %s\nHosts: %s\n",
		st.ID, st.PID, st.Dir, st.StartedAt.Format(time.RFC3339), st.Hosts)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tPLATFORM\tADDRESS\tVERSION\tSTATE\tLAST RESET")
	for _, d := range st.Devices {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", d.Target, d.Platform, d.Address, d.Version, d.State, d.lastResetText())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "Inventory: %s (pass it with -var-file)\n", st.VarFile)
	return err
}

// lastResetText is the LAST RESET column: the reason and when, "-" when
// the device has not been reset since the lab started.
func (d DeviceStatus) lastResetText() string {
	if d.LastReset == "" || d.BootedAt == nil {
		return "-"
	}
	return d.LastReset + " at " + d.BootedAt.Format(time.RFC3339)
}
