package nics

// HostState is a host's RoCE-relevant state. The same type carries the
// desired state (what the policy wants, only the fields we manage) and the
// current state (what a read found, scoped to what the desired state
// names). It is the plan payload and the agent's wire format, so every
// field is JSON-tagged and maps are used only where JSON keeps them sorted.
type HostState struct {
	NICs   []NICState    `json:"nics,omitempty"`
	RDMACM []RDMACMState `json:"rdma_cm,omitempty"`
	Files  []FileState   `json:"files,omitempty"`
}

// NICState is one RoCE port.
type NICState struct {
	Netdev     string `json:"netdev"`
	RDMADevice string `json:"rdma_device,omitempty"` // "" in desired = resolve on the host
	Port       int    `json:"port"`
	RoCEMode   string `json:"roce_mode,omitempty"` // "v1" | "v2"
	// Exists is false in a current state when the netdev is missing.
	Exists bool `json:"exists"`
	// MTU of the netdev (the VLAN's parent when tagged). In a desired state
	// MTU 0 with MTUMin set means "at least MTUMin"; the host-side resolve
	// turns it into an exact value (current when high enough, else MTUMin).
	MTU    int `json:"mtu,omitempty"`
	MTUMin int `json:"mtu_min,omitempty"`
	// Addresses on the netdev itself (CIDR). Desired: must be present;
	// foreign addresses are kept.
	Addresses []string   `json:"addresses,omitempty"`
	DCB       *DCBState  `json:"dcb,omitempty"`
	VLAN      *VLANState `json:"vlan,omitempty"`
}

// DCBState is the dcbnl view of a netdev.
type DCBState struct {
	// DCBX is the DCB_CAP_DCBX_* bitmap. Desired: only the HOST bit is
	// managed (settings pushed from the OS need OS-controlled DCBX).
	DCBX uint8 `json:"dcbx"`
	// PFCEnabled is ieee_pfc.pfc_en: bit n = PFC on priority n. Changing it
	// bounces the link on mlx5 (docs/platform-hosts.md #dcb).
	PFCEnabled uint8  `json:"pfc_enabled"`
	PFCCap     uint8  `json:"pfc_cap,omitempty"`
	MBC        uint8  `json:"mbc,omitempty"`
	Delay      uint16 `json:"delay,omitempty"`
	// Trust is "dscp" when any DSCP (selector 5) APP entry exists, else
	// "pcp" — how upstream mlx5 decides its trust state.
	Trust string `json:"trust"`
	// DSCPApps are the DSCP→priority APP entries. Desired: the entries the
	// class needs (trust dscp) or none at all (trust pcp).
	DSCPApps []DSCPApp `json:"dscp_apps,omitempty"`
	// OtherApps are non-DSCP APP entries; read only, never touched.
	OtherApps []DCBApp `json:"other_apps,omitempty"`
	// ETS as read; not managed (nil in desired).
	ETS *IEEEETS `json:"ets,omitempty"`
}

// DSCPApp maps one DSCP value to a priority.
type DSCPApp struct {
	DSCP     int `json:"dscp"`
	Priority int `json:"priority"`
}

// VLANState is the VLAN device RoCE traffic uses.
type VLANState struct {
	Name   string `json:"name"`
	Parent string `json:"parent"`
	ID     int    `json:"id"`
	Exists bool   `json:"exists"`
	// EgressQoS maps skb priority → PCP. Desired: every priority 0..7 maps
	// to the class priority, so whatever priority rdma_cm derives from the
	// ToS the frame carries the lossless PCP.
	EgressQoS map[uint32]uint32 `json:"egress_qos"`
	MTU       int               `json:"mtu,omitempty"`
	Addresses []string          `json:"addresses,omitempty"`
}

// rdma_cm methods.
const (
	RDMACMConfigfs   = "configfs"
	RDMACMDefPrec2SL = "def_prec2sl"
	RDMACMAuto       = "auto"
)

// RDMACMState is the rdma_cm default for one RDMA device port.
type RDMACMState struct {
	Device string `json:"device"` // "" in desired = resolve from Netdev
	Netdev string `json:"netdev,omitempty"`
	Port   int    `json:"port"`
	// Method is configfs or def_prec2sl; "auto" in desired = detect.
	Method string `json:"method"`
	// ToS is default_roce_tos (configfs); -1 when unknown.
	ToS int `json:"tos"`
	// Mode is default_roce_mode: "RoCE v2" | "IB/RoCE v1" (configfs).
	Mode string `json:"mode,omitempty"`
	// Prec2SL is the def_prec2sl value (legacy OFED); -1 when not used.
	Prec2SL int `json:"prec2sl"`
}

// File formats the editor understands.
const (
	FormatKVSpaced = "kv-spaced" // "KEY = VALUE" (mvapich2.conf, openmpi-mca-params.conf)
	FormatKV       = "kv"        // "KEY=VALUE" (nccl.conf, ucx.conf)
	FormatLines    = "lines"     // whole lines that must be present (mv2.conf, limits, modprobe.d)
)

// FileState is the part of one file we own.
type FileState struct {
	Path   string `json:"path"` // absolute, relative to the host root
	Format string `json:"format"`
	Exists bool   `json:"exists"`
	// Entries are the owned keys (kv formats), in the order they are
	// written. In a current state: the values found ("" key absent).
	Entries []KV `json:"entries,omitempty"`
	// Lines are the owned lines (lines format). In a current state: those
	// of the owned lines that are present.
	Lines []string `json:"lines,omitempty"`
}

// KV is one owned key. GID, when set, says the value is a GID index the
// host resolves (never a fixed number); Value is then filled by Resolve.
type KV struct {
	Key   string  `json:"key"`
	Value string  `json:"value"`
	GID   *GIDRef `json:"gid,omitempty"`
}

// GIDRef names a GID table entry by what it is, not by its index.
type GIDRef struct {
	Device   string `json:"device"` // "" = resolve from Netdev
	Port     int    `json:"port"`
	Netdev   string `json:"netdev"` // the netdev carrying the IP (VLAN device when tagged)
	Parent   string `json:"parent"` // the physical netdev (for device resolution)
	IP       string `json:"ip"`
	RoCEMode string `json:"roce_mode"` // "v1" | "v2"
}
