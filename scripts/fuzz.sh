#!/usr/bin/env bash
# make fuzz: run every Go fuzz target for FUZZTIME each (default 15s).
# A crasher is saved by go test under the package's testdata/fuzz/ and then
# runs as a regression test in every `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-15s}"
export GOFLAGS="${GOFLAGS:--mod=mod}"
fail=0; n=0
while IFS= read -r line; do
  file="${line%%:*}"; name="${line##*func }"; name="${name%%(*}"
  pkg="./$(dirname "${file#./}")"
  n=$((n+1))
  printf '%-40s %-28s ' "$pkg" "$name"
  if out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1); then
    echo ok
  else
    echo FAIL; echo "$out" | tail -20; fail=1
  fi
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . | grep -v '^./vendor/' | sort)
echo "$n fuzz targets run for $FUZZTIME each"
exit $fail
