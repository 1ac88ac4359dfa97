#!/usr/bin/env bash
# Installs the dependencies, then builds and runs the whole test suite twice:
# a Release build, and an AddressSanitizer + UndefinedBehaviorSanitizer build;
# between them, runs every fuzzing harness for 30 s.
# Tests that need root (network namespaces) skip themselves otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
build_and_test() {
  echo "=== $1 build ==="
  cmake --preset "$1"
  cmake --build --preset "$1" --parallel "$(nproc)"
  ctest --preset "$1"
}
build_and_test release
# Every libFuzzer harness for 30 s (clang, ASan + UBSan; docs/running.md).
echo "=== fuzz: every harness for 30 s ==="
./scripts/fuzz.sh --time 30 --jobs "$(nproc)"
build_and_test asan
