// Package verify proves a lossless fabric works: it pairs hosts per
// lossless class, runs perftest between each pair through the hosts'
// agents, snapshots switch and host counters around every round, checks
// the result against a threshold, the RoCE ceiling and a baseline, and
// renders the outcome as text, JSON, JUnit XML or Markdown.
//
// The package talks to devices only through the small HostAgent and
// telemetry.Source interfaces, so tests use substitutes and the CLI wires
// the real providers.
package verify
