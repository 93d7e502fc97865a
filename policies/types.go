// Package policies loads a directory of *.hcl files into a typed, validated
// Fabric: which traffic is lossless, and which switches and hosts carry it.
//
// Everything downstream (plan compilation, renderers, providers) reads these
// types and never the HCL itself.
package policies

import (
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Fabric is the whole validated policy: the single source every later step
// compiles from.
type Fabric struct {
	// Dir is the directory the policy was loaded from; relative paths in the
	// policy (known_hosts, capture directories, key files) resolve against it.
	Dir string

	Lossless    []*Lossless
	Switches    []*Switch
	Hosts       []*Host
	Credentials map[string]*Credentials
	Probe       *Probe  // nil when the policy has no probe block
	Rollout     Rollout // defaults filled in when the block is absent

	// sensitive are the sensitive strings evaluated while loading
	// (SensitiveValues), never shown; kept so a saved plan can be checked.
	sensitive []string
}

// MatchKind says how a lossless class recognises its traffic.
type MatchKind string

const (
	MatchEthertype MatchKind = "ethertype" // RoCE v1, Ethertype 0x8915
	MatchUDPPort   MatchKind = "udp_port"  // RoCE v2, UDP destination port 4791
	MatchAll       MatchKind = "all"       // every frame on the link is lossless
	MatchCoS       MatchKind = "cos"       // 802.1p priority code point
	MatchDSCP      MatchKind = "dscp"      // IP DSCP
)

// Match is exactly one classification rule; only the fields of Kind are set.
type Match struct {
	Kind      MatchKind
	Ethertype uint16 // MatchEthertype
	UDPPort   int    // MatchUDPPort
	// DSCP is the DSCP list for MatchDSCP, or the optional DSCP refinement of
	// MatchUDPPort (RoCE v2 marked with a DSCP).
	DSCP []int
	CoS  []int // MatchCoS: sorted, de-duplicated 0-7
}

// Lossless is one no-drop traffic class, end to end.
type Lossless struct {
	Name  string
	Match Match
	// Priority is the PFC priority / CoS (PCP) used on the wire. For a MatchCoS
	// class without an explicit priority it is the lowest CoS of the match.
	Priority int
	// MTU is the switch MTU for the class (bytes); 0 means platform default.
	MTU int
	// BandwidthPercent is the guaranteed share of egress bandwidth; 0 = unset.
	BandwidthPercent int
	ECN              *ECN         // nil = no ECN marking
	PFCWatchdog      *PFCWatchdog // nil = leave watchdog alone

	DeclRange hcl.Range // the block header, for diagnostics
}

// ECN thresholds for the class queue (WRED with ECN marking).
type ECN struct {
	MinThresholdKB int
	MaxThresholdKB int
	Probability    int // percent, 0-100
}

// PFCWatchdog settings for the class.
type PFCWatchdog struct {
	DetectionMS   int
	RestorationMS int
	Action        string // "drop" | "forward"
}

// Switch platforms (registered kinds).
const (
	PlatformNexus5000 = "nexus5000"
	PlatformNexus7000 = "nexus7000"
	PlatformGNMI      = "gnmi"
)

// Switch save_config values.
const (
	// SaveConfigAuto saves after a verified apply only when the startup
	// configuration matched the running one before roce's change, so no
	// one else's unsaved edit is saved behind their back.
	SaveConfigAuto = "auto"
	// SaveConfigAlways saves after every verified apply.
	SaveConfigAlways = "always"
	// SaveConfigNever never saves; the apply report says the change is not saved.
	SaveConfigNever = "never"
)

// gNMI profiles.
const (
	ProfileOpenConfig = "openconfig"
	ProfileArista     = "arista"
	ProfileSONiC      = "sonic"
	ProfileSRLinux    = "srlinux"
)

// Switch is one managed switch.
type Switch struct {
	Name     string
	Platform string // PlatformNexus5000 | PlatformNexus7000 | PlatformGNMI
	Profile  string // gNMI only: ProfileOpenConfig | ProfileArista | ProfileSONiC | ProfileSRLinux | "auto"
	// Address is host or host:port. Empty when Capture is set.
	Address string
	// Capture points at a saved capture (a directory holding show-version.txt,
	// show-module.txt, show-running-config.txt) instead of a live device:
	// roce-plan reviews against it, roce-apply refuses it.
	Capture     string
	Credentials string   // name of a credentials block
	Interfaces  []string // expanded, e.g. "Ethernet1/1" ... "Ethernet1/32"
	FCoE        bool     // keep the FCoE class (CoS 3 on Nexus 5000)
	VDC         string   // Nexus 7000: the VDC the session must land in
	// Lossless names the classes this switch carries; empty = every class.
	Lossless []string
	// SaveConfig says when roce-apply saves the running configuration to
	// the startup configuration after a verified apply: SaveConfigAuto
	// (the default), SaveConfigAlways or SaveConfigNever.
	SaveConfig string

	// SSH trust (NX-OS): HostKey is a pinned key ("ssh-ed25519 AAAA..." or a
	// SHA256:... fingerprint); KnownHosts a known_hosts file. Insecure skips
	// verification and is only honoured when set explicitly.
	HostKey            string
	KnownHosts         string
	InsecureSkipVerify bool

	TLS *TLS // gNMI only
	// GNMI is the gnmi { } block (gNMI only): per-switch settings for facts
	// that vary by vendor release. nil when the block is absent.
	GNMI *GNMISettings

	DeclRange hcl.Range
}

// TLS settings for gNMI.
type TLS struct {
	CAFile             string
	CertFile           string
	KeyFile            string
	ServerName         string
	InsecureSkipVerify bool
	Plaintext          bool // no TLS at all (lab use); must be explicit
}

// Host is one managed Linux host with RoCE NICs.
type Host struct {
	Name        string
	Address     string // host or host:port for SSH; empty when Local
	Local       bool
	Credentials string
	KnownHosts  string
	HostKey     string
	// Root prefixes every file, sysfs and configfs path the agent touches
	// ("" = "/"); the lab and tests use a temporary tree.
	Root string
	// Netns runs the agent's netlink work inside a named network namespace
	// (lab hosts).
	Netns  string
	NICs   []*NIC
	MPI    []string // "mvapich2" | "openmpi" | "ucx" | "nccl"
	RDMACM string   // "configfs" | "def_prec2sl" | "auto" (default)
	// Switch is the switch this host hangs off (for probe coverage); optional.
	Switch string

	DeclRange hcl.Range
}

// NIC is one RoCE port on a host.
type NIC struct {
	Netdev     string // e.g. "ens1f0"
	RDMADevice string // e.g. "mlx5_0"; "" = resolve from sysfs
	Port       int    // RDMA port, default 1
	VLAN       int    // 0 = untagged
	Address    string // CIDR on the VLAN (or netdev when untagged), e.g. "10.10.0.11/24"
	RoCEMode   string // "v1" | "v2"
	// GIDIndex pins a GID index; nil = resolve from sysfs by netdev, IP and RoCE version.
	GIDIndex *int
	MTU      int    // netdev MTU; 0 = derive (>= 4192 for RoCE path MTU 4096)
	Lossless string // class name; "" = the fabric's only class
	// Trust is "pcp" or "dscp"; "" = derive from the class match.
	Trust string

	DeclRange hcl.Range
}

// Credentials name where a secret comes from; never the secret itself.
type Credentials struct {
	Name         string
	Username     string
	PasswordEnv  string
	PasswordFile string
	KeyFile      string
	KeyEnv       string

	DeclRange hcl.Range
}

// Probe configures roce-verify's bandwidth test.
type Probe struct {
	Tool        string   // "ib_write_bw" (default) | "ib_send_bw" | "ib_read_bw"
	Command     []string // overrides the executable, e.g. ["/opt/perftest/bin/ib_write_bw"]
	Duration    time.Duration
	MessageSize int
	QPs         int
	RDMACM      bool // -R (connect QPs through rdma_cm)
	// Exactly one threshold is set: ThresholdGbps > 0, or ThresholdFraction in (0,1].
	ThresholdGbps     float64
	ThresholdFraction float64
	BasePort          int           // first TCP port for perftest rendezvous
	Timeout           time.Duration // per probe
}

// Rollout controls how roce-apply moves through the fabric.
type Rollout struct {
	Canary      int           // targets applied first, alone
	BatchSize   int           // targets per batch after the canaries
	Parallelism int           // concurrent targets inside a batch
	Pause       time.Duration // between batches
}

// Secret is a resolved credential. It is never stored in a plan, log or
// report; String redacts it so an accidental %v cannot leak it.
type Secret struct {
	Username string
	Password string
	Key      []byte // private key (PEM) for SSH
}

// String redacts the secret.
func (s Secret) String() string { return "Secret{" + s.Username + ", <redacted>}" }

// gNMI commit-confirmed modes (GNMISettings.CommitConfirm).
const (
	GNMICommitAuto = "auto" // use it when the target advertises it
	GNMICommitOn   = "on"   // require it; refuse a target that does not advertise it
	GNMICommitOff  = "off"  // never use it
)

// GNMISettings are a gNMI switch's settings for what the gNMI reference
// marks UNCONFIRMED, so switches on different releases can differ. A field
// left unset (zero, or nil Origin) takes the provider's environment
// fallback, else its default (docs/gnmi-profiles.md).
type GNMISettings struct {
	// AristaNoDropBitOrder is how Arista's priorities-no-drop bitmap numbers
	// priorities: "lsb0" (bit n = priority n) or "msb0" (bit 7-n). Profile
	// arista only.
	AristaNoDropBitOrder string
	// Origin is the gNMI origin of the profile's native paths: "sonic_db"
	// or "sonic-db" (sonic), a name or "" for no origin (srlinux).
	Origin *string
	// CommitConfirm is GNMICommitAuto, GNMICommitOn or GNMICommitOff.
	CommitConfirm string
	// CommitRollback is how long the target waits for the confirm before it
	// undoes an unconfirmed commit.
	CommitRollback time.Duration
	// Encoding overrides the encoding chosen from the target's
	// Capabilities: "json_ietf" or "json" ("" = from Capabilities).
	Encoding string
	// RequireModels false plans a target whose Capabilities lack a model
	// the profile needs, with a warning (nil = required).
	RequireModels *bool

	DeclRange hcl.Range
}
