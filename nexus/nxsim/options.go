// Package nxsim is a simulated Cisco Nexus 5000/7000 reachable over real SSH.
//
// One Switch holds the running config (in the nexus model), the checkpoints
// and the fault settings; any number of SSH sessions share it. Sessions
// behave like the NX-OS CLI that scrapligo and OpenSSH users see: the
// `hostname#` prompt, sub-mode prompts taken from the nexus grammar Editor,
// echo of typed input, caret errors, checkpoint/rollback and the show
// commands the provider reads. The device facts it follows are in
// docs/nxos.md.
//
// By hand:
//
//	roce-lab nxos --platform nexus5000 --listen 127.0.0.1:2222 --config startup.cfg
//	ssh -p 2222 admin@127.0.0.1            (password "admin" unless --password)
//	ssh -p 2222 admin@127.0.0.1 'show running-config ipqos'
//
// Faults (Options.Faults, SetFaults, or the --latency, --reject, --stall,
// --drop-after-config-lines, --drop-after-lines and --peer-no-drop-cos
// flags) make it misbehave on purpose for tests.
package nxsim

import (
	"log/slog"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/nexus"
)

// Options describe one simulated switch.
type Options struct {
	Hostname string
	// Platform is "nexus5000" or "nexus7000".
	Platform string
	// Version is the NX-OS version, e.g. "7.1(4)N1(1)"; "" picks a
	// platform default.
	Version string
	// Chassis is the chassis line of `show version`; "" picks a platform
	// default.
	Chassis string
	// Modules is the `show module` table; nil picks a platform default (a
	// 7000 gets one F-series and one M-series card).
	Modules []nexus.Module
	// Interfaces the switch has; nil derives Ethernet<slot>/<port> from the
	// modules.
	Interfaces []string
	// StartupConfig is running-config text the switch boots with ("" = empty).
	StartupConfig string
	// Users maps username → password. Nil or empty accepts "admin"/"admin".
	Users map[string]string
	// AuthorizedKeys are public keys accepted for any user.
	AuthorizedKeys []ssh.PublicKey
	// HostKey is the server key; nil generates an ed25519 key.
	HostKey ssh.Signer
	// VDC is, on a 7000, the VDC sessions land in ("" = the default VDC).
	VDC    string
	Faults Faults
	Logger *slog.Logger
}

// Faults inject misbehaviour, for tests and benchmarks.
type Faults struct {
	// Latency is added before every answer.
	Latency time.Duration
	// RoundTripLatency is added once per client turn (input that arrives
	// while the CLI waits with nothing buffered): a network round trip,
	// which pipelined lines pay once (roundtrips.go).
	RoundTripLatency time.Duration
	// DropAfterConfigLines closes the connection right after the Nth line
	// typed in configuration mode has been handled (0 = never). The count
	// runs across all sessions of the switch until SetFaults resets it.
	DropAfterConfigLines int
	// RejectCommand is a configuration line (exact match after trimming)
	// answered with an invalid-command error and not applied; set to
	// `copy running-config startup-config`, the save is refused (exec.go).
	RejectCommand string
	// StallCommand is a line that is never answered; the session stays
	// silent until its connection closes.
	StallCommand string
	// DropAfterLines closes the connection right after the Nth command the
	// switch has handled in any session and mode: exec commands (the
	// terminal settings a client sends at login, show, checkpoint, rollback,
	// no checkpoint) and configuration lines alike; empty lines do not
	// count (0 = never). The count runs across all sessions until SetFaults
	// resets it; LinesHandled reads it.
	DropAfterLines int

	// PeerNoDropCoS models the DCBX peer of some ports: the CoS values the
	// NIC at the other end has PFC enabled on. A port in
	// `priority-flow-control mode auto` is operationally on only when that
	// set equals the switch's no-drop CoS (docs/nxos.md: when the no-drop
	// sets of the two ends differ, PFC stays operationally off even in
	// Auto); mode on ignores the peer. Ports not listed have a peer that
	// agrees. Keys are interface names as the switch prints them
	// ("Ethernet1/1").
	PeerNoDropCoS map[string][]int

	// DiscardsPerRead makes some ports keep dropping: every `show
	// interface` answer (text or `| json`) that prints one of these ports
	// first counts that many more input discards on it, so a reader that
	// snapshots the counters before and after a round sees them rise by
	// that much. Keys are interface names as the switch prints them.
	// AddDiscards moves the counters once instead.
	DiscardsPerRead map[string]uint64
}

// clone copies the fault settings, so a caller's map can change later
// without racing with the switch.
func (f Faults) clone() Faults {
	if f.PeerNoDropCoS != nil {
		m := make(map[string][]int, len(f.PeerNoDropCoS))
		for k, v := range f.PeerNoDropCoS {
			m[k] = append([]int(nil), v...)
		}
		f.PeerNoDropCoS = m
	}
	if f.DiscardsPerRead != nil {
		m := make(map[string]uint64, len(f.DiscardsPerRead))
		for k, v := range f.DiscardsPerRead {
			m[k] = v
		}
		f.DiscardsPerRead = m
	}
	return f
}
