package lab

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// StateDir is where a running lab keeps its inventory, below the lab dir.
const StateDir = ".lab"

// Options for Up.
type Options struct {
	Logger *slog.Logger
	// Hosts: run the policy's hosts in network namespaces (needs root).
	// Without it the hosts are simulated: their links, DCB and RDMA device
	// are all emulated under their root tree, and they are labelled so.
	Hosts bool
	// ID distinguishes this lab's namespaces from another lab's; random when "".
	ID string
}

// Lab is a running simulated fabric.
type Lab struct {
	Dir      string
	ID       string
	Password string
	Switches map[string]string // name → address
	Netns    map[string]string // host → namespace
	Sims     map[string]*nxsim.Server
	Targets  map[string]*gnmisim.Server
	hosts    *hostNet
	log      *slog.Logger
	// What Status reports beyond the maps above.
	started   time.Time
	platform  map[string]string // switch → "nexus5000", "gnmi (arista)", …
	gnmiVer   map[string]string // gNMI switch → the version it reports
	hostAddrs map[string]string // host → its NIC addresses

	// mu guards what upgrades change after Up: hostResets.
	mu sync.Mutex
	// hostResets: host → its last driver reload by roce-lab upgrade.
	hostResets map[string]lastReset
}

// lastReset is when a device was last reset and why.
type lastReset struct {
	at     time.Time
	reason string
}

// State is DIR/.lab/state.json: what `roce-lab down` needs.
type State struct {
	PID      int               `json:"pid"`
	ID       string            `json:"id"`
	Ready    bool              `json:"ready"`
	Switches map[string]string `json:"switches"`
	Netns    map[string]string `json:"netns"`
	Bridge   string            `json:"bridge_netns,omitempty"`
	Hosts    string            `json:"hosts"` // "namespaces" | "skipped: <why>"
}

// Up starts every switch and host of the lab policy in dir and writes the
// inventory. The lab runs until ctx ends or Close is called.
func Up(ctx context.Context, dir string, o Options) (_ *Lab, err error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	topo, err := LoadTopology(dir)
	if err != nil {
		return nil, err
	}
	// The lab policy validates with its variable defaults (the real
	// addresses are only known once the simulators listen), except that
	// its hosts — off unless a lab runs them — are asked for.
	fab, src, diags := policies.Load(dir, policies.LoadOptions{
		Vars:   []string{"lab_hosts=true"},
		Getenv: func(string) (string, bool) { return "", false },
	})
	if diags.HasErrors() {
		var b strings.Builder
		if src != nil {
			_ = src.WriteDiagnostics(&b, diags, false)
		}
		return nil, fmt.Errorf("the lab policy in %s does not validate:\n%s%v", dir, b.String(), diags.Errs())
	}
	id := o.ID
	if id == "" {
		id = randomHex(3)
	}
	state := filepath.Join(dir, StateDir)
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", state, err)
	}
	l := &Lab{Dir: dir, ID: id, Password: randomHex(12), Switches: map[string]string{}, Netns: map[string]string{},
		Sims: map[string]*nxsim.Server{}, Targets: map[string]*gnmisim.Server{}, log: log,
		started: time.Now().UTC().Truncate(time.Second), platform: map[string]string{}, gnmiVer: map[string]string{}, hostAddrs: map[string]string{}}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	if err := os.WriteFile(filepath.Join(state, "password"), []byte(l.Password+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("writing the lab password: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(state, "pki"), 0o700); err != nil {
		return nil, fmt.Errorf("creating the lab's PKI directory: %w", err)
	}
	_, certFile, keyFile, err := gnmisim.WriteTestPKI(filepath.Join(state, "pki"))
	if err != nil {
		return nil, fmt.Errorf("creating the lab's TLS certificates: %w", err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the lab's TLS certificate: %w", err)
	}
	var known []string
	users := map[string]string{"admin": l.Password}
	schemas := &gnmisim.Schemas{} // each gNMI profile's YANG compiled once for the lab
	for _, sw := range fab.Switches {
		sim := topo.Switches[sw.Name]
		l.platform[sw.Name] = sw.Platform
		switch sw.Platform {
		case policies.PlatformNexus5000, policies.PlatformNexus7000:
			startup := ""
			if sim.Startup != "" {
				b, err := os.ReadFile(filepath.Join(dir, sim.Startup))
				if err != nil {
					return nil, fmt.Errorf("switch %s: reading its startup config: %w", sw.Name, err)
				}
				startup = string(b)
			}
			srv, err := nxsim.Listen(ctx, "127.0.0.1:0", nxsim.Options{
				Hostname: sw.Name, Platform: sw.Platform, Version: sim.Version, Chassis: sim.Chassis,
				Modules: sim.Modules, Interfaces: sw.Interfaces, StartupConfig: startup,
				Users: users, VDC: sim.VDC, Logger: log.With("switch", sw.Name),
			})
			if err != nil {
				return nil, fmt.Errorf("starting the NX-OS simulator for %s: %w", sw.Name, err)
			}
			l.Sims[sw.Name] = srv
			l.Switches[sw.Name] = srv.Addr()
			known = append(known, knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.Switch().HostKey()))
		case policies.PlatformGNMI:
			srv, err := gnmisim.Listen(ctx, "127.0.0.1:0", gnmisim.Options{
				Profile: sw.Profile, Users: users, TLSCert: cert, Interfaces: sw.Interfaces,
				Version: sim.Version, Logger: log.With("switch", sw.Name), CommitConfirm: true,
				Schemas: schemas,
			})
			if err != nil {
				return nil, fmt.Errorf("starting the gNMI target for %s: %w", sw.Name, err)
			}
			l.Targets[sw.Name] = srv
			l.Switches[sw.Name] = srv.Addr()
			l.platform[sw.Name] = sw.Platform + " (" + sw.Profile + ")"
			l.gnmiVer[sw.Name] = sim.Version
		default:
			return nil, fmt.Errorf("switch %s: the lab cannot simulate platform %q", sw.Name, sw.Platform)
		}
	}
	sort.Strings(known)
	if err := os.WriteFile(filepath.Join(state, "known_hosts"), []byte(strings.Join(known, "\n")+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("writing the lab known_hosts: %w", err)
	}
	l.hosts, err = startHosts(ctx, dir, id, fab, topo, o.Hosts)
	if err != nil {
		return nil, err
	}
	l.Netns = l.hosts.netns
	for _, h := range fab.Hosts {
		var addrs []string
		for _, n := range h.NICs {
			if n.Address != "" {
				addrs = append(addrs, n.Address)
			}
		}
		l.hostAddrs[h.Name] = strings.Join(addrs, ", ")
	}
	hostsNote := "namespaces"
	if !o.Hosts {
		hostsNote = "simulated: no namespaces (not root); links, DCB and RDMA emulated"
	}
	if err := l.writeVars(); err != nil {
		return nil, err
	}
	st := State{PID: os.Getpid(), ID: id, Ready: true, Switches: l.Switches, Netns: l.Netns, Hosts: hostsNote}
	if l.hosts != nil {
		st.Bridge = l.hosts.bridge
	}
	if err := writeJSON(filepath.Join(state, "state.json"), st); err != nil {
		return nil, err
	}
	return l, nil
}

// VarFile is the variables file roce-plan/apply/verify take with -var-file.
func (l *Lab) VarFile() string { return filepath.Join(l.Dir, StateDir, "lab.vars") }

func (l *Lab) writeVars() error {
	var b strings.Builder
	b.WriteString("# Written by roce-lab up: where the lab fabric listens. Pass with -var-file.\n")
	writeMap(&b, "lab_addresses", l.Switches)
	writeMap(&b, "lab_netns", l.Netns)
	fmt.Fprintf(&b, "lab_hosts = %t\n", l.hosts != nil && len(l.hosts.roots) > 0)
	return os.WriteFile(l.VarFile(), []byte(b.String()), 0o600)
}

func writeMap(b *strings.Builder, name string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(b, "%s = {\n", name)
	for _, k := range keys {
		fmt.Fprintf(b, "  %q = %q\n", k, m[k])
	}
	b.WriteString("}\n")
}

// Close stops every simulator and removes the namespaces and the state
// files that only make sense while the lab runs.
func (l *Lab) Close() error {
	var errs []error
	for _, s := range l.Sims {
		errs = append(errs, s.Close())
	}
	for _, s := range l.Targets {
		errs = append(errs, s.Close())
	}
	if l.hosts != nil {
		errs = append(errs, l.hosts.close())
	}
	_ = os.Remove(filepath.Join(l.Dir, StateDir, "state.json"))
	_ = os.Remove(l.VarFile())
	return errors.Join(errs...)
}

// Describe prints what runs where, for a person.
func (l *Lab) Describe(w io.Writer) {
	names := make([]string, 0, len(l.Switches))
	for n := range l.Switches {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "Lab %s is up:\n", l.ID)
	for _, n := range names {
		kind := "gNMI target"
		if _, ok := l.Sims[n]; ok {
			kind = "NX-OS simulator (ssh admin@" + l.Switches[n] + ")"
		}
		fmt.Fprintf(w, "  switch %-12s %s  %s\n", n, l.Switches[n], kind)
	}
	var hosts []string
	if l.hosts != nil {
		for h := range l.hosts.roots {
			hosts = append(hosts, h)
		}
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		if ns := l.Netns[h]; ns != "" {
			fmt.Fprintf(w, "  host   %-12s network namespace %s (simulated RDMA device; no real RoCE)\n", h, ns)
		} else {
			fmt.Fprintf(w, "  host   %-12s SIMULATED host: no namespace (not root); links, DCB and RDMA all emulated under %s\n", h, l.hosts.roots[h])
		}
	}
	fmt.Fprintf(w, "Inventory: %s (pass it with -var-file)\n", l.VarFile())
}

// ReadState reads a running lab's state file.
func ReadState(dir string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, StateDir, "state.json"))
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, StateDir, "state.json"), err)
	}
	return &st, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
