#!/usr/bin/env bash
# make demo: start the lab fabric, then plan → apply → plan (empty) → verify.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH"
LAB=examples/lab
VARS="-var-file $LAB/.lab/lab.vars"

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "Start the lab fabric (Nexus 5000 + 7000 simulators over SSH, gNMI targets, hosts in network namespaces)"
[ "$(id -u)" = 0 ] || echo "(not root: the hosts run as simulated hosts with emulated links; as root they get network namespaces)"
roce-lab down "$LAB" >/dev/null 2>&1 || true
show roce-lab up -d "$LAB"
trap 'step "Stop the lab"; roce-lab down "$LAB"' EXIT

step "Check the policy (no device contacted)"
show roce-plan validate $VARS "$LAB"

step "Plan: read every device, render per platform, show the diff, save the plan"
set +e
roce-plan $VARS -detailed-exitcode -out "$LAB/.lab/plan.roce" "$LAB"; rc=$?
set -e
printf '(roce-plan -detailed-exitcode exited %d: 2 means "changes to apply")\n' "$rc"
[ "$rc" = 2 ] || { echo "expected changes on a fresh lab"; exit 1; }

step "The same plan as Markdown, for a pull-request comment (first lines)"
roce-plan $VARS -markdown "$LAB" | head -n 12 || true

step "Apply exactly the reviewed plan: canary first, one transaction per device"
show roce-apply $VARS "$LAB/.lab/plan.roce"

step "Plan again: the fabric now matches the policy"
show roce-plan $VARS -detailed-exitcode "$LAB"

step "Verify: bandwidth probe between host pairs, PFC and discard counters, versions"
set +e
roce-verify $VARS "$LAB"; rc=$?
set -e
printf '(roce-verify exited %d: 0 pass, 1 error, 3 verification failed — the lab hosts have no RDMA hardware, so the probe reports that plainly)\n' "$rc"
