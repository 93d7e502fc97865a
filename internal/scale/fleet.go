// Package scale is the scale benchmark of issue 9 (`make bench`): it starts
// a simulated fabric of NX-OS simulators and gNMI targets in this process,
// each with injected latency, seeds thousands of simulated hosts whose
// every kernel interface is emulated (nics.LabSpec.EmulatedLinks, so no
// real interface of the machine is touched), writes an HCL policy with
// for_each, and measures load, plan, apply and a second (empty) plan
// through the real plan engine and providers.
package scale

import (
	"context"
	"crypto/tls"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// Kinds of simulated switch, as the report names them.
const (
	KindNexus5000 = "nexus5000"
	KindNexus7000 = "nexus7000"
	KindArista    = "gnmi/arista"
	KindSONiC     = "gnmi/sonic"
	KindSRLinux   = "gnmi/srlinux"
	KindHost      = "host"
)

// switchKinds in policy order.
var switchKinds = []string{KindNexus5000, KindNexus7000, KindArista, KindSONiC, KindSRLinux}

//go:embed startup/nexus5000.cfg
var startup5000 string

//go:embed startup/nexus7000.cfg
var startup7000 string

// The 7000's modules: an F2 card in slot 3 (PFC-capable, managed) and an M1
// card in slot 4 (not managed), as in the lab.
var modules7000 = []nexus.Module{
	{Slot: 1, Ports: 0, Type: "Supervisor Module-2", Model: "N7K-SUP2E", Status: "active *", Series: "sup"},
	{Slot: 3, Ports: 48, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F248XP-25E", Status: "ok", Series: "F"},
	{Slot: 4, Ports: 48, Type: "1000 Mbps Optical Ethernet Module", Model: "N7K-M148GS-11", Status: "ok", Series: "M"},
}

// Mix is how many switches of each kind (and hosts) a fabric has.
type Mix map[string]int

// MixFor splits n switches like the issue asks: 40 % Nexus 5000, 20 %
// Nexus 7000, 40 % gNMI spread over Arista, SONiC and SR Linux. Every kind
// gets at least one switch when n ≥ 5.
func MixFor(switches, hosts int) Mix {
	m := Mix{KindHost: hosts}
	if switches <= 0 {
		return m
	}
	n5 := switches * 40 / 100
	n7 := switches * 20 / 100
	if switches >= 5 {
		n5, n7 = max(n5, 1), max(n7, 1)
	}
	g := switches - n5 - n7
	if switches >= 5 && g < 3 {
		n5 -= 3 - g
		g = 3
	}
	m[KindNexus5000], m[KindNexus7000] = n5, n7
	m[KindArista] = g/3 + min(g%3, 1)
	m[KindSONiC] = g/3 + g%3/2
	m[KindSRLinux] = g / 3
	return m
}

// Switches is the number of switches in the mix.
func (m Mix) Switches() int {
	n := 0
	for _, k := range switchKinds {
		n += m[k]
	}
	return n
}

// switchName is the policy name of the i-th switch of a kind.
func switchName(kind string, i int) string {
	p := map[string]string{KindNexus5000: "n5k", KindNexus7000: "n7k", KindArista: "eos", KindSONiC: "sonic", KindSRLinux: "srl"}[kind]
	return fmt.Sprintf("%s-%04d", p, i)
}

// fleet is the running simulators of one fabric.
type fleet struct {
	addrs map[string]string // switch name → address
	kinds map[string]string // switch name → kind
	nx    []*nxsim.Server
	nkind []string // kind of nx[i]
	gn    []*gnmisim.Server
	gkind []string // kind of gn[i]
}

// linesHandled is, per NX-OS kind, how many commands its simulators have
// answered so far (nxsim counts every non-empty line, exec and config).
func (f *fleet) linesHandled() map[string]int {
	out := map[string]int{}
	for i, s := range f.nx {
		out[f.nkind[i]] += s.Switch().LinesHandled()
	}
	return out
}

// roundTrips is, per switch kind, the round trips its simulators counted
// so far: client turns on the NX-OS shells (lines sent together count
// once), RPCs on the gNMI targets.
func (f *fleet) roundTrips() map[string]int {
	out := map[string]int{}
	for i, s := range f.nx {
		out[f.nkind[i]] += s.Switch().RoundTrips()
	}
	for i, s := range f.gn {
		out[f.gkind[i]] += s.Target().RPCs()
	}
	return out
}

// setsServed is, per gNMI kind, how many SetRequests its targets applied
// in all (the simulators keep them): a count the calibration can be
// checked against.
func (f *fleet) setsServed() map[string]int {
	out := map[string]int{}
	for i, s := range f.gn {
		out[f.gkind[i]] += len(s.Target().SetRequests())
	}
	return out
}

func (f *fleet) close() error {
	var errs []error
	for _, s := range f.nx {
		errs = append(errs, s.Close())
	}
	for _, s := range f.gn {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

var hostnameLine = regexp.MustCompile(`(?m)^hostname .*\n`)

// startFleet starts every switch of the mix on 127.0.0.1 with the given
// per-command (NX-OS) or per-RPC (gNMI) latency, and writes what the
// policy needs to reach them into dir: password, known_hosts, pki/.
func startFleet(ctx context.Context, dir string, mix Mix, lat Latency, log *slog.Logger) (_ *fleet, err error) {
	f := &fleet{addrs: map[string]string{}, kinds: map[string]string{}}
	defer func() {
		if err != nil {
			_ = f.close()
		}
	}()
	const password = "scale-bench"
	if err := os.WriteFile(filepath.Join(dir, "password"), []byte(password+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("writing the password file: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pki"), 0o700); err != nil {
		return nil, fmt.Errorf("creating the PKI directory: %w", err)
	}
	_, certFile, keyFile, err := gnmisim.WriteTestPKI(filepath.Join(dir, "pki"))
	if err != nil {
		return nil, fmt.Errorf("creating TLS certificates: %w", err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the TLS certificate: %w", err)
	}
	users := map[string]string{"admin": password}
	var known []string
	// One host key per platform is enough: key generation is setup cost,
	// not what the benchmark measures, and known_hosts pins it per address.
	hostKeys := map[string]ssh.Signer{}
	for _, kind := range []string{KindNexus5000, KindNexus7000} {
		k, err := newHostKey()
		if err != nil {
			return nil, err
		}
		hostKeys[kind] = k
	}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	schemas := &gnmisim.Schemas{} // each gNMI profile's YANG compiled once for the fleet
	for _, kind := range switchKinds {
		for i := range mix[kind] {
			name := switchName(kind, i)
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				addr, line, nx, gn, err := startSwitch(ctx, kind, name, users, hostKeys[kind], cert, lat, log, schemas)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					return
				}
				f.addrs[name], f.kinds[name] = addr, kind
				if nx != nil {
					f.nx = append(f.nx, nx)
					f.nkind = append(f.nkind, kind)
					known = append(known, line)
				}
				if gn != nil {
					f.gn = append(f.gn, gn)
					f.gkind = append(f.gkind, kind)
				}
			}()
		}
	}
	wg.Wait()
	if len(errs) > 0 {
		return f, errors.Join(errs...)
	}
	sort.Strings(known)
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(strings.Join(known, "\n")+"\n"), 0o600); err != nil {
		return f, fmt.Errorf("writing known_hosts: %w", err)
	}
	return f, nil
}

func startSwitch(ctx context.Context, kind, name string, users map[string]string, key ssh.Signer, cert tls.Certificate, lat Latency, log *slog.Logger, schemas *gnmisim.Schemas) (addr, known string, nx *nxsim.Server, gn *gnmisim.Server, err error) {
	switch kind {
	case KindNexus5000, KindNexus7000:
		o := nxsim.Options{Hostname: name, Platform: kind, Users: users, HostKey: key,
			Faults: nxsim.Faults{RoundTripLatency: lat.NXOS}, Logger: log}
		if kind == KindNexus5000 {
			o.Version, o.Chassis = "7.1(4)N1(1)", "Nexus 5596"
			o.Interfaces = []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"}
			o.StartupConfig = hostnameLine.ReplaceAllString(startup5000, "hostname "+name+"\n")
		} else {
			o.Version, o.Chassis = "6.2(14)", "Nexus7000 C7010 (10 Slot) Chassis"
			o.Modules = modules7000
			o.StartupConfig = hostnameLine.ReplaceAllString(startup7000, "hostname "+name+"\n")
		}
		srv, err := nxsim.Listen(ctx, "127.0.0.1:0", o)
		if err != nil {
			return "", "", nil, nil, fmt.Errorf("starting the NX-OS simulator %s: %w", name, err)
		}
		line := knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.Switch().HostKey())
		return srv.Addr(), line, srv, nil, nil
	default:
		prof := strings.TrimPrefix(kind, "gnmi/")
		srv, err := gnmisim.Listen(ctx, "127.0.0.1:0", gnmisim.Options{
			Profile: prof, Users: users, TLSCert: cert, Interfaces: gnmiInterfaces[prof],
			Version: gnmiVersions[prof], Logger: log, CommitConfirm: true,
			Faults: gnmisim.Faults{Latency: lat.GNMI}, Schemas: schemas,
		})
		if err != nil {
			return "", "", nil, nil, fmt.Errorf("starting the gNMI target %s: %w", name, err)
		}
		return srv.Addr(), "", nil, srv, nil
	}
}

var gnmiInterfaces = map[string][]string{
	"arista":  {"Ethernet1", "Ethernet2"},
	"sonic":   {"Ethernet0", "Ethernet4"},
	"srlinux": {"ethernet-1/1", "ethernet-1/2"},
}

var gnmiVersions = map[string]string{"arista": "4.36.1F", "sonic": "SONiC.202411", "srlinux": "v25.3.1"}

// seedHosts creates the hosts' lab roots under dir/hosts, with every
// kernel interface emulated (no namespace, no real netdev).
func seedHosts(ctx context.Context, dir string, n int) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	work := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				root := filepath.Join(dir, "hosts", hostName(i))
				spec := nics.LabSpec{EmulatedLinks: true, NICs: []nics.LabNIC{{Netdev: "eth0", RDMADevice: "mlx5_0"}}}
				if err := nics.SeedLab(root, spec); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("host %s: %w", hostName(i), err))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

func hostName(i int) string { return fmt.Sprintf("h%05d", i) }
