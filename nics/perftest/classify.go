package perftest

import (
	"fmt"
	"slices"
	"strings"
)

// Failure classes. Callers (reports, JUnit) key on these strings.
const (
	ClassNoDevice = "no-device"
	ClassConnect  = "connect"
	ClassRTRRTS   = "rtr-rts"
	ClassGIDType  = "gid-type"
	ClassTimeout  = "timeout"
	// ClassRetryExceeded: work completions failed with the transport (12)
	// or RNR (13) retry counter exceeded — packets lost on the path.
	ClassRetryExceeded = "retry-exceeded"
	ClassThreshold     = "threshold"
	// ClassVersion: the two sides run perftest releases that refuse each
	// other (one side older than 5.70).
	ClassVersion = "version"
	ClassUnknown = "unknown"
)

// Classes lists every class Classify can return (reports and their
// schema must know each): the classes of the known failure texts, then
// those Classify or its callers give without one (a timeout, anything
// unrecognised).
func Classes() []string {
	var out []string
	for _, s := range signatures() {
		if !slices.Contains(out, s.class) {
			out = append(out, s.class)
		}
	}
	for _, c := range []string{ClassTimeout, ClassUnknown} {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Failure is a perftest run that did not produce a usable result, with a
// hint a user can act on.
type Failure struct {
	Class  string `json:"class"`  // one of the Class* constants
	Hint   string `json:"hint"`   // what to check or change
	Detail string `json:"detail"` // the perftest line(s) that identified the failure
}

func (f *Failure) Error() string {
	s := "perftest " + f.Class
	if f.Detail != "" {
		s += ": " + f.Detail
	}
	if f.Hint != "" {
		s += " (" + f.Hint + ")"
	}
	return s
}

// signature is one known failure text. Order matters: the first match in
// signatures wins, so the most specific cause comes first (a GID-type
// mismatch is also followed by "Unable to Connect the HCA's").
type signature struct {
	substr string
	class  string
	hint   string
}

const (
	hintNoDevice = "no RDMA device is visible on this host: check `rdma link show` / `ibv_devinfo`, that the RDMA driver (e.g. mlx5_ib) is loaded and the device name in the policy; " +
		"a host without RDMA hardware cannot run this probe (tests replay recorded output instead: see docs/verify.md#testing-without-rdma)"
	hintConnect = "the two sides could not connect the HCAs: most often a GID-index or VLAN mismatch (pin the GID of the VLAN's IP, RoCE v2, on both hosts or use rdma_cm), " +
		"or the server was not listening / the TCP rendezvous port is blocked"
	hintRTRRTS     = "the queue pair could not move to RTR/RTS: the remote GID is unreachable or zero (wrong GID index, address not on the RoCE netdev/VLAN), or the path MTU/ports differ between the sides"
	hintGIDType    = "the two hosts use GIDs of different RoCE versions (v1 vs v2): pin a GID index of the same RoCE version on both, or use rdma_cm (-R)"
	hintMemlock    = "registering memory failed: raise the memlock limit (`* soft memlock unlimited` in /etc/security/limits.d, LimitMEMLOCK=infinity for services)"
	hintCompletion = "work completions failed during the run (retries exceeded): packets are being dropped on the path — check PFC on every hop of the lossless class and the MTU"
	hintThreshold  = "bandwidth was below the limit perftest was given (-w)"
	hintRetry      = "the sender gave up after its retries (work completion status 12, transport retry counter exceeded): packets of the RoCE class are being dropped on the path — check that PFC is on for the class's priority on every switch port and NIC, that the MTU fits, and that the class's CoS/DSCP reach the no-drop queue (roce-verify's counters show where pause frames stop)"
	hintLocalProt  = "a work completion failed with status 4 (local protection error): the adapter refused a buffer of this host (its memory registration or access rights), which is not packet loss on the network — check the device and memory flags of the run (for GPU memory, that peer-memory/GPUDirect RDMA works on this host), then rerun"
	hintVersion    = "the two hosts run perftest releases that cannot talk to each other (perftest refuses a peer older than 5.70): install the same perftest release on both hosts (`ib_write_bw --version`), then rerun"
	hintRNR        = "the receiver was not ready (work completion status 13, RNR retry counter exceeded): the server side did not post receives in time — check that the server process is still running and not starved of CPU"
)

// signatures lists the known failure texts (docs/platform-hosts.md#perftest and
// the perftest issues cited there).
func signatures() []signature {
	return []signature{
		{"Did not detect devices", ClassNoDevice, hintNoDevice},
		{"Unable to find the Infiniband/RoCE device", ClassNoDevice, hintNoDevice},
		{"No IB devices found", ClassNoDevice, hintNoDevice},
		{"Failed to get IB devices list", ClassNoDevice, hintNoDevice},
		{"wasn't found", ClassNoDevice, hintNoDevice}, // "IB device 'X' wasn't found"
		// perftest's check_version_compatibility (src/perftest_communication.c,
		// linux-rdma/perftest since 583a467): printed, then exit 1.
		{"not compatible with versions older than", ClassVersion, hintVersion},
		{"Incompatibility issue with GID types", ClassGIDType, hintGIDType},
		{"to RTR", ClassRTRRTS, hintRTRRTS}, // "Failed to modify QP 59 to RTR"
		{"to RTS", ClassRTRRTS, hintRTRRTS},
		{"Unable to Connect the HCA's", ClassConnect, hintConnect},
		{"Couldn't read remote address", ClassConnect, hintConnect},
		{"Failed to exchange data between server and clients", ClassConnect, hintConnect},
		// The rendezvous read failing: " Unable to read from socket/rdma_cm"
		// now; " Unable to read to socket/rdam_cm" (sic) from 2013 until
		// linux-rdma/perftest ac87d0e (2020-10-04); the mixed form between.
		{"Unable to read to socket/rdma_cm", ClassConnect, hintConnect},
		{"Unable to read from socket/rdma_cm", ClassConnect, hintConnect},
		{"Unable to read to socket/rdam_cm", ClassConnect, hintConnect},
		{"Couldn't connect to", ClassConnect, hintConnect},
		{"Unable to open file descriptor for socket connection", ClassConnect, hintConnect},
		{"rdma_bind_addr failed", ClassConnect, hintConnect},
		{"rdma_resolve", ClassConnect, hintConnect},
		{"BW result is below bw limit", ClassThreshold, hintThreshold},
		{"RLIMIT_MEMLOCK", ClassUnknown, hintMemlock},
		{"Couldn't allocate MR", ClassUnknown, hintMemlock},
		{"Failed status 12:", ClassRetryExceeded, hintRetry}, // " Failed status 12: wr_id 0 syndrom 0x81"
		{"transport retry counter exceeded", ClassRetryExceeded, hintRetry},
		{"Failed status 13:", ClassRetryExceeded, hintRNR},
		{"RNR retry counter exceeded", ClassRetryExceeded, hintRNR},
		{"Failed status 4:", ClassUnknown, hintLocalProt},                     // perftest before 2025: " Failed status 4: wr_id 0 syndrom 0x51"
		{"Failed status-local protection error", ClassUnknown, hintLocalProt}, // since perftest c7f9e40: " Failed status-local protection error (4): …"
		{"Completion with error", ClassUnknown, hintCompletion},
	}
}

// Classify inspects a finished run. It returns nil for a clean exit without
// any known failure text, else the most specific Failure it recognises; an
// unrecognised non-zero exit is ClassUnknown with perftest's last lines.
func Classify(stdout, stderr string, exitCode int) *Failure {
	all := stderr + "\n" + stdout
	for _, s := range signatures() {
		if line, ok := lineContaining(all, s.substr); ok {
			// The memlock warning is only a warning when the run succeeded.
			if exitCode == 0 && s.class == ClassUnknown {
				continue
			}
			return &Failure{Class: s.class, Hint: s.hint, Detail: line}
		}
	}
	if exitCode == 0 {
		return nil
	}
	return &Failure{
		Class:  ClassUnknown,
		Hint:   "perftest failed for a reason roce does not recognise; run the command by hand on both hosts",
		Detail: fmt.Sprintf("exit code %d: %s", exitCode, lastLines(stderr, stdout, 3)),
	}
}

func lineContaining(text, substr string) (string, bool) {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			return strings.TrimSpace(l), true
		}
	}
	return "", false
}

// lastLines returns up to n non-blank trailing lines of stderr (or stdout
// when stderr is empty), joined with " / ".
func lastLines(stderr, stdout string, n int) string {
	src := stderr
	if strings.TrimSpace(src) == "" {
		src = stdout
	}
	var keep []string
	ls := strings.Split(src, "\n")
	for i := len(ls) - 1; i >= 0 && len(keep) < n; i-- {
		if t := strings.TrimSpace(ls[i]); t != "" {
			keep = append([]string{t}, keep...)
		}
	}
	if len(keep) == 0 {
		return "no output"
	}
	return strings.Join(keep, " / ")
}
