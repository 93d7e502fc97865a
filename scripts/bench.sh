#!/usr/bin/env bash
# make bench: (1) the Go benchmarks of every package that has them, in
# benchstat-friendly form (compare two runs with
# `benchstat old.txt new.txt`), then (2) the scale benchmark of issue 9:
# plan and apply 1,000 simulated switches and 10,000 simulated hosts, once
# per latency: round trips per target kind counted by the simulators, CPU
# per target, and the ratio to the latency-bound ideal.
#
#   BENCH_ARGS   flags for roce-scale, e.g. "-switches 100 -hosts 1000"
#                (default: the issue's sizes; see roce-scale -h)
#   BENCH_LATENCIES  latencies per round trip to run at (default "2ms 20ms")
#   BENCH_COMPARE=1  each run twice, Nexus reads one command per exchange
#                (before) and batched (after), printed side by side
#   BENCH_COUNT  go test -count for the Go benchmarks (default 1; use 6+
#                for benchstat confidence intervals)
#   BENCH_DIR    where results go (default bin/bench)
#   BENCH_SKIP_GO=1 / BENCH_SKIP_SCALE=1 skip one half.
#
# Results and the exact commands of a reference run: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:--mod=mod}"
BENCH_DIR="${BENCH_DIR:-bin/bench}"
BENCH_COUNT="${BENCH_COUNT:-1}"
mkdir -p "$BENCH_DIR"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"

if [ "${BENCH_SKIP_GO:-}" != 1 ]; then
  pkgs=$(grep -rl --include='*_test.go' -E '^func Benchmark' . | xargs -n1 dirname | sort -u)
  out="$BENCH_DIR/go-$stamp.txt"
  echo "== Go benchmarks ($(echo $pkgs | wc -w) packages, -count $BENCH_COUNT) -> $out"
  # One package at a time, so the benchmarks never share the 2 cores.
  go test -p 1 -run '^$' -bench . -benchmem -count "$BENCH_COUNT" $pkgs | tee "$out"
fi

if [ "${BENCH_SKIP_SCALE:-}" != 1 ]; then
  go build -o bin/roce-scale ./internal/scale/cmd/roce-scale
  compare=""
  if [ "${BENCH_COMPARE:-}" = 1 ]; then compare="-compare"; fi
  for lat in ${BENCH_LATENCIES:-2ms 20ms}; do
    out="$BENCH_DIR/scale-$stamp-$lat.txt"
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
    echo "== scale benchmark at $lat per round trip: bin/roce-scale ${BENCH_ARGS:-} -latency $lat $compare -> $out"
    # shellcheck disable=SC2086
    bin/roce-scale ${BENCH_ARGS:-} -latency "$lat" $compare | tee "$out"
  done
fi
