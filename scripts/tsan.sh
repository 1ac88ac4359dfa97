#!/usr/bin/env bash
# Builds the `tsan` preset (GCC's ThreadSanitizer) and runs the test suites
# labelled `threaded` under it (docs/running.md, "ThreadSanitizer"). Not
# part of CI's time budget: scripts/long-checks.sh runs it with the long
# fuzzing runs.
#
# Extra arguments go to ctest (e.g. -R Failover). Exit status: ctest's.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset tsan
cmake --build --preset tsan --parallel "$(nproc)"
ctest --preset tsan "$@"
