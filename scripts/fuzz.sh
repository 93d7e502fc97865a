#!/usr/bin/env bash
# Run every Go fuzz target for FUZZTIME each.
#   make fuzz   FUZZTIME=15s (default): a real fuzzing session.
#   make test   FUZZTIME=200x: every target briefly, so a parser change that
#               panics on an input from outside is caught in CI.
# Each package's fuzz-instrumented test binary is built once (go test -c
# -fuzz) and run per target in the package directory, so its committed
# corpus (testdata/fuzz/FuzzX) is replayed first. A crasher found here is
# saved by the fuzzer under that directory; commit it and it runs as a
# regression test in every `make test` from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-15s}"
FUZZ_ONLY="${FUZZ_ONLY:-.}" # regexp on the package directory, e.g. FUZZ_ONLY=policies
export GOFLAGS="${GOFLAGS:--mod=mod}"
cache="$(go env GOCACHE)/fuzz"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT

fail=0; n=0; start=$SECONDS
declare -A targets=()
while IFS= read -r line; do
  file="${line%%:*}"; name="${line##*func }"; name="${name%%(*}"
  dir="$(dirname "${file#./}")"
  targets[$dir]+="$name "
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . | grep -v '^./vendor/' | sort)

for dir in $(printf '%s\n' "${!targets[@]}" | sort | grep -E -- "$FUZZ_ONLY"); do
  pkg="./$dir"
  test="$bin/$(echo "$dir" | tr / _).test"
  if ! out=$(go test -c -fuzz=. -o "$test" "$pkg" 2>&1); then
    printf '%-40s %s\n' "$pkg" "BUILD FAILED"; echo "$out" | tail -20; fail=1; continue
  fi
  importpath="$(go list "$pkg")"
  for name in ${targets[$dir]}; do
    n=$((n+1))
    printf '%-40s %-28s ' "$pkg" "$name"
    if out=$(cd "$dir" && "$test" -test.run='^$' -test.fuzz="^${name}\$" -test.fuzztime="$FUZZTIME" \
        -test.fuzzcachedir="$cache/$importpath" 2>&1); then
      echo ok
    else
      echo FAIL; echo "$out" | tail -20; fail=1
    fi
  done
done
echo "$n fuzz targets run for $FUZZTIME each in $((SECONDS-start))s"
exit $fail
