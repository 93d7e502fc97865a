// Package nexus is the NX-OS platform knowledge for Cisco Nexus 5000/5500 and
// Nexus 7000 switches: a model of the QoS part of the running configuration
// (`show running-config ipqos` plus interfaces), a parser for it, renderers
// from lossless classes to the objects a switch needs, a diff that turns
// current-vs-desired into an ordered command script the switch accepts, a
// configuration-mode Editor that applies such a script to the model (the
// model-level apply used by tests and the grammar engine of nexus/nxsim), and
// parsers/formatters for the show outputs the providers read.
//
// Everything here is pure: no I/O, no network. Facts come from
// docs/nxos.md (with their public sources); facts it marks UNCONFIRMED are
// named per-platform settings (see
// platforms.Capabilities and templates.go) so they can be changed in one place.
//
// Ownership: objects whose name starts with the intent's prefix ("ROCE-" by
// default) are ours. Everything else is foreign: read, kept byte-identical,
// never edited or deleted. Naming of our objects:
//
//	ip access-list ROCE-ACL-<class>            (RoCE v2 by UDP port)
//	mac access-list ROCE-ACL-<class>           (RoCE v1 by Ethertype, only with EthertypeACLInQoS)
//	class-map type qos|network-qos|queuing ROCE-<class>
//	policy-map type qos ROCE-QOS-IN
//	policy-map type network-qos ROCE-NQ        (Nexus 5000)
//	policy-map type network-qos ROCE-nq-7e     (Nexus 7000: qos copy of default-nq-7e-policy)
//	policy-map type queuing ROCE-QUEUING-OUT
//
// When `system qos` already carries a foreign policy of a type we attach, our
// policy is built as a superset: it carries the foreign policy's classes
// (class-fcoe and any other) with their actions, and ours is attached in its
// place. The foreign policy-map object itself is left untouched (detached);
// the Change for `system qos` says so in its Note.
package nexus

// Editor behaviour that is modelled rather than quoted from Cisco text:
//
//   - A line the current sub-mode does not know is tried in the parent modes
//     (as NX-OS does), so scripts need no `exit` lines.
//   - Objects must exist before they are referenced (ACL → class-map →
//     policy-map → service-policy) and cannot be deleted while referenced.
//   - PFC `mode on` and link-level `flowcontrol ... on` are refused together
//     on one port (docs/nxos.md); PFC is refused on M-series ports.
//   - `pause no-drop` on class-default is refused unless
//     Caps.ClassDefaultNoDrop (UNCONFIRMED, docs/nxos.md); queue-limit on
//     a no-drop class is refused (docs/nxos.md).
//   - Nexus 7000 network-qos exists only as `qos copy` of a template; only
//     the template's classes can be edited (docs/nxos.md, UNCONFIRMED).
//   - A queuing policy whose bandwidth adds up to more than 100 % cannot be
//     attached. Editing an attached policy in place is allowed.
//   - A refused line changes neither the configuration nor the mode.
