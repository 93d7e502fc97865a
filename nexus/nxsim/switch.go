package nxsim

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/platforms"
)

// Switch is one simulated Nexus. It is safe for concurrent use by any number
// of SSH sessions.
type Switch struct {
	hostname   string
	kind       string
	vdc        string
	version    nexus.Version
	modules    []nexus.Module
	interfaces []string
	platform   nexus.Platform
	hostKey    ssh.Signer
	users      map[string]string
	authKeys   []ssh.PublicKey
	log        *slog.Logger
	now        func() time.Time
	exec       *cmdNode // exec-mode grammar, fixed after New

	mu sync.Mutex
	// cfg is the running config. A rollback replaces it; gen counts the
	// replacements so sessions holding an Editor on the old value notice.
	cfg         *nexus.Config
	gen         uint64
	checkpoints []*checkpoint
	faults      Faults
	configLines int // configuration lines handled since the last SetFaults
	lines       int // commands handled (any mode) since the last SetFaults
	// roundTrips counts client turns since the switch started (roundtrips.go).
	roundTrips int
	// shows counts exec-mode show commands since the switch started.
	shows int
	// conns counts the SSH connections being served (Connections).
	conns int
	// booted is when the switch (re)started and resetReason why: `show
	// version` prints the uptime and "Last reset" from them.
	booted      time.Time
	resetReason string
	// startup is the saved configuration (`copy running-config
	// startup-config`), savedAt when it was saved (startup.go).
	startup *nexus.Config
	savedAt time.Time
	// discards are the ports' discard counters a test added (AddDiscards).
	discards map[string]portDiscards
}

// New builds a switch from opts. The startup config must parse.
func New(opts Options) (*Switch, error) {
	def, err := defaultsFor(opts.Platform)
	if err != nil {
		return nil, err
	}
	s := &Switch{
		hostname: opts.Hostname,
		kind:     opts.Platform,
		vdc:      opts.VDC,
		hostKey:  opts.HostKey,
		authKeys: slices.Clone(opts.AuthorizedKeys),
		log:      opts.Logger,
		faults:   opts.Faults.clone(),
		now:      time.Now,
	}
	s.booted = s.now()
	if s.vdc != "" && s.kind != "nexus7000" {
		return nil, fmt.Errorf("nxsim %s: VDC %q set, but only a nexus7000 has VDCs", s.hostname, s.vdc)
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.users = map[string]string{"admin": "admin"}
	if len(opts.Users) > 0 {
		s.users = make(map[string]string, len(opts.Users))
		for u, p := range opts.Users {
			s.users[u] = p
		}
	}
	osv := opts.Version
	if osv == "" {
		osv = def.version
	}
	chassis := opts.Chassis
	if chassis == "" {
		chassis = def.chassis
	}
	image := def.image
	if opts.Version != "" {
		image = imageFor(s.kind, osv)
	}
	s.version = nexus.Version{Platform: def.platform, Chassis: chassis, OS: osv, Kickstart: osv, Image: image}

	s.modules = slices.Clone(opts.Modules)
	if s.modules == nil {
		s.modules = def.modules
	}
	for i := range s.modules {
		if s.modules[i].Series == "" {
			s.modules[i].Series = seriesOf(s.modules[i].Model)
		}
	}
	if err := checkHardwareRelease(s.kind, s.version, s.modules, osv); err != nil {
		return nil, fmt.Errorf("nxsim %s: %w", s.hostname, err)
	}
	s.interfaces = slices.Clone(opts.Interfaces)
	if s.interfaces == nil {
		s.interfaces = interfacesOf(s.modules)
	}

	s.platform, err = nexus.PlatformFor(s.kind, platforms.Default())
	if err != nil {
		return nil, fmt.Errorf("nxsim %s: %w", s.hostname, err)
	}
	// Loaded as the switch loads a configuration file: a line it would
	// refuse (its simulated release included) is an error naming the
	// line, not silently kept.
	s.cfg, err = nexus.CheckRelease(opts.StartupConfig, s.platform, s.modules, s.version.OS)
	if err != nil {
		return nil, fmt.Errorf("nxsim %s: startup config (fix the lines named, then start again): %w", s.hostname, err)
	}
	s.adoptStartup(opts.Hostname == "")
	if s.hostname == "" {
		s.hostname = "switch"
	}
	s.nameInConfig()
	s.startup, s.savedAt = s.cfg.Clone(), s.booted
	s.exec = s.execTree()
	if s.hostKey == nil {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("nxsim %s: generate host key: %w", s.hostname, err)
		}
		s.hostKey, err = ssh.NewSignerFromKey(priv)
		if err != nil {
			return nil, fmt.Errorf("nxsim %s: host key: %w", s.hostname, err)
		}
	}
	return s, nil
}

// adoptStartup drops the `version` line of a saved running-config (the
// switch prints its own release there) and, when no hostname was given,
// takes the config's `hostname` line.
func (s *Switch) adoptStartup(takeHostname bool) {
	objs := s.cfg.Objects[:0]
	for _, o := range s.cfg.Objects {
		f := strings.Fields(o.Header)
		if o.Kind == nexus.KindRaw && len(f) == 2 && len(o.Lines) == 0 {
			switch f[0] {
			case "version":
				continue
			case "hostname", "switchname":
				if takeHostname {
					s.hostname = f[1]
				}
			}
		}
		objs = append(objs, o)
	}
	s.cfg.Objects = objs
}

// nameInConfig gives a configuration without a `hostname` or
// `switchname` line the switch's `hostname NAME`, first: a real switch's
// running configuration holds that line near the top, before the
// `feature` lines (NX-OSv 7.3(1)D1(1) and Nexus 9000 captures,
// docs/nxos.md#hostname-line). A startup config's own line is kept as it
// is, even where Options.Hostname named the switch otherwise.
func (s *Switch) nameInConfig() {
	for _, o := range s.cfg.Objects {
		f := strings.Fields(o.Header)
		if o.Kind == nexus.KindRaw && len(f) == 2 && len(o.Lines) == 0 && (f[0] == "hostname" || f[0] == "switchname") {
			return
		}
	}
	line := &nexus.Object{Kind: nexus.KindRaw, Header: "hostname " + s.hostname}
	s.cfg.Objects = append([]*nexus.Object{line}, s.cfg.Objects...)
}

// imageFor names the system image file the way the release would, e.g.
// 7.1(4)N1(1) → bootflash:///n5000-uk9.7.1.4.N1.1.bin (docs/nxos.md).
func imageFor(kind, version string) string {
	v := make([]rune, 0, len(version))
	for _, r := range version {
		switch r {
		case '(', ')':
			if len(v) > 0 && v[len(v)-1] != '.' {
				v = append(v, '.')
			}
		default:
			v = append(v, r)
		}
	}
	s := string(v)
	if len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	if kind == "nexus7000" {
		return "bootflash:///n7000-s2-dk9." + s + ".bin"
	}
	return "bootflash:///n5000-uk9." + s + ".bin"
}

// Hostname is the switch name shown in the prompt.
func (s *Switch) Hostname() string { return s.hostname }

// RunningConfig returns the full running config text (without the
// !Command/!Time header `show running-config` adds).
func (s *Switch) RunningConfig() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.String()
}

// SetFaults replaces the fault settings and restarts the line counts.
func (s *Switch) SetFaults(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f.clone()
	s.configLines = 0
	s.lines = 0
}

// LinesHandled is how many commands (any session, any mode, empty lines
// not counted) the switch has handled since it started or SetFaults was
// last called: the positions Faults.DropAfterLines can drop at.
func (s *Switch) LinesHandled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lines
}

// faultsNow returns the current fault settings.
func (s *Switch) faultsNow() Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

// HostKey is the public half of the SSH host key.
func (s *Switch) HostKey() ssh.PublicKey { return s.hostKey.PublicKey() }

// Checkpoints returns the names of the stored checkpoints, oldest first.
func (s *Switch) Checkpoints() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, len(s.checkpoints))
	for i, c := range s.checkpoints {
		names[i] = c.name
	}
	return names
}
