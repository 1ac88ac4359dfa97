#!/usr/bin/env bash
# Installs the dependencies, then builds and runs the whole test suite twice:
# a Release build, and an AddressSanitizer + UndefinedBehaviorSanitizer build.
# Tests that need root (network namespaces) skip themselves otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
for preset in release asan; do
  echo "=== ${preset} build ==="
  cmake --preset "${preset}"
  cmake --build --preset "${preset}" --parallel "$(nproc)"
  ctest --preset "${preset}"
done
