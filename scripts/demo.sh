#!/usr/bin/env bash
# make demo: the whole story on a simulated fabric, in one command.
#   lab up → plan → apply → plan (empty) → verify PASS → record a baseline
#   → upgrade the Nexus 7000 from NX-OS 5.1(3) to 5.1(5) → the plan shows the
#   drift → verify against the baseline fails and names the cause
#   → apply → verify PASS → lab down
# It exits 0 only if every step does what the story says.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH"
LAB=examples/lab
STATE="$LAB/.lab"
VARS="-var-file $STATE/lab.vars"

# Bold step titles only on a terminal that takes them, and never with
# NO_COLOR set (https://no-color.org) or TERM=dumb.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
	BOLD=$'\033[1m' PLAIN=$'\033[0m'
else
	BOLD='' PLAIN=''
fi
step() { printf '\n%s==> %s%s\n' "$BOLD" "$*" "$PLAIN"; }
say() { printf '    %s\n' "$@"; }
# shown CMD...: print the command line as the reader would type it, on the
# terminal's stdout (fd 3) even when the step sends the command's output
# elsewhere (expect 0 roce-plan ... >/dev/null).
exec 3>&1
shown() { printf '$ %s\n' "$*" >&3; }
show() { shown "$@"; "$@"; }
# last CMD...: run CMD, show only its last line (the summary).
last() { shown "$@"; "$@" 2>/dev/null | tail -n 1; }
# expect CODE CMD...: run CMD, fail the demo unless it exits CODE.
expect() {
	local want=$1 rc=0
	shift
	shown "$@"
	"$@" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "demo: expected exit $want from '$*', got $rc" >&2
		exit 1
	fi
}
# section TARGET: one target's part of a plan, without the warnings.
section() { awk -v t="$1" '/^(switch|host)\./{keep = (index($0, t " (") == 1)} /^Plan:/{keep=0} keep && !/^  warning:/'; }
# changed-only: keep the plan's targets that change and its summary.
changed_only() { awk '/^(switch|host)\./{keep = ($0 !~ /is up to date$/)} /^Plan:|^No changes/{keep=1} keep && !/^  warning:/'; }

step "Start the lab fabric: Nexus 5000 + 7000 simulators over SSH, gNMI targets, hosts"
[ "$(id -u)" = 0 ] || say "(not root: the hosts are simulated hosts with emulated links; as root they get network namespaces)"
roce-lab down "$LAB" >/dev/null 2>&1 || true
show roce-lab up -d "$LAB"
trap 'step "Stop the lab"; roce-lab down "$LAB"' EXIT

step "Check the policy (no device contacted)"
show roce-plan validate $VARS "$LAB" 2>/dev/null

step "Plan: read every device, render per platform, show the diff, save the plan"
say "The Nexus 7000's part of it (the full plan, all 9 devices: $STATE/plan.txt):"
rc=0
shown roce-plan $VARS -detailed-exitcode -out "$STATE/plan.roce" "$LAB"
roce-plan $VARS -detailed-exitcode -out "$STATE/plan.roce" "$LAB" 2>/dev/null >"$STATE/plan.txt" || rc=$?
section switch.n7k-1 <"$STATE/plan.txt"
grep '^Plan:' "$STATE/plan.txt"
[ "$rc" = 2 ] || { echo "demo: expected changes on a fresh lab (exit 2), got $rc" >&2; exit 1; }
say '(exit 2: changes to apply, as on any fresh fabric)'

step "Apply exactly the reviewed plan: canary first, one transaction per device"
last roce-apply $VARS "$STATE/plan.roce"

step "Plan again: the fabric now matches the policy"
expect 0 roce-plan $VARS -detailed-exitcode "$LAB" 2>/dev/null >/dev/null
say 'No changes (exit 0).'

step "Verify and record a baseline: probes on the lab's EMULATED RDMA device, counters, versions"
say "The lab hosts have no RDMA hardware: their probe result comes from a documented" \
	"path model fed by the state read from every switch and host (docs/verify.md)."
expect 0 roce-verify $VARS -record-baseline "$STATE/baseline.json" "$LAB" 2>/dev/null

step "Upgrade the Nexus 7000 from NX-OS 5.1(3) to 5.1(5), as one site did"
say "Nothing else changes. On that site RoCE fell from 9.91 Gb/s to 30 Mb/s."
show roce-lab upgrade -lab "$LAB" switch.n7k-1 '5.1(5)'

step "Plan after the upgrade: the drift, in plain words"
rc=0
shown roce-plan $VARS -detailed-exitcode -out "$STATE/repair.roce" "$LAB"
roce-plan $VARS -detailed-exitcode -out "$STATE/repair.roce" "$LAB" 2>/dev/null >"$STATE/drift.txt" || rc=$?
changed_only <"$STATE/drift.txt"
[ "$rc" = 2 ] || { echo "demo: expected the upgrade to show as drift (exit 2), got $rc" >&2; exit 1; }
grep -q 'drift' "$STATE/drift.txt" || { echo "demo: the plan does not call the change drift" >&2; exit 1; }

step "Verify against the baseline: the bandwidth drop and its cause"
rc=0
shown roce-verify $VARS -baseline "$STATE/baseline.json" -format junit -out "$STATE/post-upgrade.xml" "$LAB"
roce-verify $VARS -baseline "$STATE/baseline.json" -format junit -out "$STATE/post-upgrade.xml" "$LAB" 2>/dev/null >"$STATE/verify.txt" || rc=$?
sed -n '/^roce-verify:/p; /^Probes:/,/^$/p' "$STATE/verify.txt" | grep -v '  note: '
grep '  FAIL  baseline' "$STATE/verify.txt" || true
[ "$rc" = 3 ] || { echo "demo: expected verification to fail (exit 3), got $rc" >&2; exit 1; }
grep -q 'cause: no-pause on switch.n7k-1' "$STATE/verify.txt" || { echo "demo: verify did not name the Nexus 7000 as the cause" >&2; exit 1; }
say "(exit 3: verification failed; JUnit report for CI in $STATE/post-upgrade.xml)"

step "Apply the repair plan: roce puts back what the new default took away"
last roce-apply $VARS "$STATE/repair.roce"

step "Verify again: the class is lossless end to end"
expect 0 roce-verify $VARS "$LAB" 2>/dev/null >"$STATE/verify-after.txt"
sed -n '/^roce-verify:/p; /^Probes:/,/^$/p' "$STATE/verify-after.txt" | grep -v '  note: '
say "Record a new baseline for the new release: roce-verify $VARS -record-baseline FILE $LAB"
