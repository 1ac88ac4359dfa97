#!/usr/bin/env bash
# Installs the dependencies, then builds and runs the whole test suite twice:
# a Release build, and an AddressSanitizer + UndefinedBehaviorSanitizer build;
# between them, runs every fuzzing harness for 30 s.
# Tests that need root (network namespaces) skip themselves otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# Each stage's heading says when it started (CI's time is watched).
build_and_test() {
  echo "=== $1 build (at ${SECONDS} s) ==="
  cmake --preset "$1"
  cmake --build --preset "$1" --parallel "$(nproc)"
  echo "--- $1 tests (at ${SECONDS} s)"
  ctest --preset "$1"
}
build_and_test release
# Every libFuzzer harness for 30 s (clang, ASan + UBSan; docs/running.md).
echo "=== fuzz: every harness for 30 s (at ${SECONDS} s) ==="
./scripts/fuzz.sh --time 30 --jobs "$(nproc)"
build_and_test asan
