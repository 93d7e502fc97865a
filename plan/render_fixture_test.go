package plan

import (
	"encoding/json"
	"time"
)

// fixtureRenderTime is when the fixture plan was "made"; fixed so goldens are
// stable.
var fixtureRenderTime = time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)

// fixtureRenderPlan covers every case the renderers distinguish: NX-OS create,
// update and delete with commands; gNMI ops; a host change; drift; a
// target that could not be read; an offline target; warnings; a target
// with nothing to do.
func fixtureRenderPlan() *Plan {
	return &Plan{
		FormatVersion: FormatVersion,
		CreatedAt:     fixtureRenderTime,
		PolicyDir:     "examples/rocev2",
		PolicyDigest:  "sha256:0f3c9a",
		Targets: []*TargetPlan{
			{
				Address:     "switch.n5k-a",
				Kind:        "nexus5000",
				Endpoint:    "10.0.0.1:22",
				Fingerprint: "sha256:aa11",
				Facts:       map[string]string{"nxos": "7.3(8)N1(1)", "model": "N5K-C5672UP"},
				Changes: []Change{
					{
						Address: "ip access-list ROCE-rocev2",
						Action:  ActionCreate,
						After:   "ip access-list ROCE-rocev2\n  10 permit udp any any eq 4791\n",
						Disrupt: DisruptionNone,
						Commands: []string{
							"ip access-list ROCE-rocev2",
							"10 permit udp any any eq 4791",
						},
					},
					{
						Address: "policy-map type network-qos ROCE-NQ",
						Action:  ActionUpdate,
						Before: "policy-map type network-qos ROCE-NQ\n  class type network-qos ROCE-NQ-3\n    pause no-drop\n" +
							"    mtu 1500\n  class type network-qos class-fcoe\n    pause no-drop\n    mtu 2158\n" +
							"  class type network-qos class-default\n    mtu 1500\n",
						After: "policy-map type network-qos ROCE-NQ\n  class type network-qos ROCE-NQ-3\n    pause no-drop\n" +
							"    mtu 9216\n  class type network-qos class-fcoe\n    pause no-drop\n    mtu 2158\n" +
							"  class type network-qos class-default\n    mtu 1500\n",
						Disrupt: DisruptionBrief,
						Drift:   true,
						Note:    "ROCE-NQ is ours but its lossless class now has mtu 1500 instead of 9216; the NX-OS upgrade to 7.3(8)N1(1) reset it",
						Commands: []string{
							"policy-map type network-qos ROCE-NQ",
							"class type network-qos ROCE-NQ-3",
							"mtu 9216",
						},
					},
					{
						Address: "interface Ethernet1/1",
						Action:  ActionUpdate,
						Before:  "interface Ethernet1/1\n  description <to host-1 & host-2>\n",
						After:   "interface Ethernet1/1\n  description <to host-1 & host-2>\n  priority-flow-control mode on\n",
						Disrupt: DisruptionLink,
						Commands: []string{
							"interface Ethernet1/1",
							"priority-flow-control mode on",
						},
					},
					{
						Address: "class-map type qos ROCE-old",
						Action:  ActionDelete,
						Before:  "class-map type qos match-all ROCE-old\n  match cos 5\n",
						Disrupt: DisruptionNone,
						Note:    "class ROCE-old is no longer in the policy",
						Commands: []string{
							"no class-map type qos match-all ROCE-old",
						},
					},
				},
				Commands: []string{
					"ip access-list ROCE-rocev2",
					"10 permit udp any any eq 4791",
					"policy-map type network-qos ROCE-NQ",
					"class type network-qos ROCE-NQ-3",
					"mtu 9216",
					"interface Ethernet1/1",
					"priority-flow-control mode on",
					"no class-map type qos match-all ROCE-old",
				},
			},
			{
				Address:     "switch.leaf1",
				Kind:        "gnmi/arista",
				Endpoint:    "10.0.1.1:6030",
				Fingerprint: "sha256:bb22",
				Changes: []Change{
					{
						Address: "qos/classifiers/classifier[name=ROCE]",
						Action:  ActionCreate,
						After:   "classifier ROCE\n  term rocev2: udp dst 4791 -> fwd-group ROCE\n",
						Disrupt: DisruptionNone,
						Ops: []Op{{
							Op: "replace", Origin: "openconfig",
							Path:  "/qos/classifiers/classifier[name=ROCE]",
							Value: json.RawMessage(`{"config": {"name": "ROCE", "type": "IPV4"}}`),
						}},
					},
					{
						Address: "qos/forwarding-groups/forwarding-group[name=OLD]",
						Action:  ActionDelete,
						Before:  "forwarding-group OLD\n",
						Disrupt: DisruptionBrief,
						Ops: []Op{{
							Op: "delete", Origin: "openconfig",
							Path: "/qos/forwarding-groups/forwarding-group[name=OLD]",
						}},
					},
				},
				Ops: []Op{
					{Op: "delete", Origin: "openconfig", Path: "/qos/forwarding-groups/forwarding-group[name=OLD]"},
					{Op: "replace", Origin: "openconfig", Path: "/qos/classifiers/classifier[name=ROCE]",
						Value: json.RawMessage(`{"config":{"name":"ROCE","type":"IPV4"}}`)},
				},
				Warnings: []string{"ECN marking is not configured: the policy has no ecn block"},
			},
			{
				Address:     "host.gpu-1",
				Kind:        "host",
				Endpoint:    "gpu-1.lab:22",
				Fingerprint: "sha256:cc33",
				Changes: []Change{{
					Address: "nic.ens1f0.pfc",
					Action:  ActionUpdate,
					Before:  "pfc_en 0x00\n",
					After:   "pfc_en 0x08\n",
					Disrupt: DisruptionLink,
				}},
				Payload: json.RawMessage(`{"nics":[{"name":"ens1f0","pfc_en":8}]}`),
				ThisMachine: &ThisMachine{Interfaces: []string{"ens1f0"},
					CutOff: []string{"ens1f0: PFC change toggles the link (mlx5) of the interface carrying the SSH session from 192.0.2.9"}},
			},
			{
				Address:   "switch.n7k-core",
				Kind:      "nexus7000",
				Endpoint:  "10.0.0.7:22",
				Error:     "ssh: handshake failed: host key mismatch for 10.0.0.7:22 (pinned SHA256:abc)",
				ErrorKind: ErrorKindRead,
				Changes:   []Change{},
			},
			{
				Address:     "switch.n5k-b",
				Kind:        "nexus5000",
				Offline:     true,
				Fingerprint: "sha256:dd44",
				Changes: []Change{{
					Address:  "system qos",
					Action:   ActionUpdate,
					Before:   "system qos\n",
					After:    "system qos\n  service-policy type network-qos ROCE-NQ\n",
					Disrupt:  DisruptionBrief,
					Commands: []string{"system qos", "service-policy type network-qos ROCE-NQ"},
				}},
				Commands: []string{"system qos", "service-policy type network-qos ROCE-NQ"},
			},
			{
				Address:     "host.gpu-2",
				Kind:        "host",
				Endpoint:    "gpu-2.lab:22",
				Fingerprint: "sha256:ee55",
				Changes:     []Change{},
			},
		},
	}
}

// fixtureErrorsPlan has one target of each error kind beside one up to
// date: what each is labelled, and that its next step follows.
func fixtureErrorsPlan() *Plan {
	return &Plan{
		FormatVersion: FormatVersion,
		CreatedAt:     fixtureRenderTime,
		PolicyDir:     "examples/lab",
		PolicyDigest:  "sha256:ffff",
		Targets: []*TargetPlan{
			{Address: "switch.leaf1", Kind: "nexus5000", Endpoint: "127.0.0.1:2201", Changes: []Change{},
				Error:     "switch.leaf1: render the desired QoS config: nexus: queuing bandwidth does not fit in 100%: other classes keep 50%, roce classes ask 60%, class-default needs at least 1%",
				ErrorKind: ErrorKindRender},
			{Address: "host.node1", Kind: "host", Changes: []Change{},
				Error:     "host.node1 nic ens1f0: roce_mode \"v3\": want v1 or v2",
				ErrorKind: ErrorKindRender},
			{Address: "switch.leaf2", Kind: "nexus5000", Endpoint: "127.0.0.1:2202", Changes: []Change{},
				Error:     "switch.leaf2: connect to 127.0.0.1:2202: dial tcp 127.0.0.1:2202: connect: connection refused; check that the switch is up and its address and port are right",
				ErrorKind: ErrorKindRead},
			{Address: "switch.spine1", Kind: "gnmi/arista", Changes: []Change{},
				Error:     "switch.spine1: internal error while planning: runtime error: index out of range [3] with length 3",
				ErrorKind: ErrorKindInternal},
			{Address: "switch.spine2", Kind: "gnmi/sonic", Changes: []Change{},
				Error:     "context canceled",
				ErrorKind: ErrorKindCancelled},
			// Written before error_kind existed: read as a read error.
			{Address: "switch.old", Kind: "nexus7000", Changes: []Change{}, Error: "ssh: handshake failed: EOF"},
			{Address: "host.node2", Kind: "host", Fingerprint: "sha256:0101", Changes: []Change{}},
		},
	}
}

// fixtureEmptyPlan has targets that are all up to date.
func fixtureEmptyPlan() *Plan {
	return &Plan{
		FormatVersion: FormatVersion,
		CreatedAt:     fixtureRenderTime,
		PolicyDir:     "examples/rocev2",
		PolicyDigest:  "sha256:0f3c9a",
		Targets: []*TargetPlan{
			{Address: "switch.n5k-a", Kind: "nexus5000", Endpoint: "10.0.0.1:22", Fingerprint: "sha256:aa11", Changes: []Change{}},
			{Address: "host.gpu-1", Kind: "host", Fingerprint: "sha256:cc33"},
		},
	}
}

// fixtureRenderApplyReport covers every apply status, transcripts included.
func fixtureRenderApplyReport() *ApplyReport {
	return &ApplyReport{
		Started:  fixtureRenderTime,
		Finished: fixtureRenderTime.Add(42*time.Second + 120*time.Millisecond),
		Results: []*ApplyResult{
			{Address: "switch.n5k-a", Status: StatusApplied, Duration: 8200 * time.Millisecond,
				Warnings:   []string{"not saved to the startup configuration: the switch has unsaved changes that are not roce's; review them, then run `copy running-config startup-config`"},
				Transcript: []Exchange{{Command: "checkpoint roce-1", Response: "Done"}}},
			{Address: "host.gpu-2", Status: StatusUnchanged},
			{Address: "switch.leaf1", Status: StatusRolledBack, Duration: 3 * time.Second,
				Error: "commit confirm not received within 30s; the target rolled back",
				Transcript: []Exchange{
					{Command: "Set replace openconfig:/qos/classifiers/classifier[name=ROCE]", Response: "OK"},
					{Command: "Confirm", Response: "rpc error: code = DeadlineExceeded", Failed: true},
				}},
			{Address: "switch.n5k-c", Status: StatusFailed, Duration: 12 * time.Second,
				Error: "rollback checkpoint roce-1 failed: % Invalid command at '^' marker.",
				Transcript: []Exchange{
					{Command: "priority-flow-control mode on", Response: "                      ^\n% Invalid command at '^' marker.", Failed: true},
					{Command: "rollback running-config checkpoint roce-1", Response: "ERROR: Rollback failed", Failed: true},
				}},
			{Address: "host.gpu-1", Status: StatusStale, Error: ErrStale.Error()},
			{Address: "switch.n5k-b", Status: StatusRefused, Error: "planned against a saved capture; roce-apply refuses offline targets"},
			{Address: "switch.n5k-d", Status: StatusUntouched},
			{Address: "switch.n5k-e", Status: StatusUntouched},
		},
	}
}
