#!/usr/bin/env bash
# The checks too long for CI's time budget, in one run (docs/running.md,
# "Long checks"): every libFuzzer harness for --fuzz-time seconds, two at a
# time; the ThreadSanitizer build of the threaded suites; and, as root, the
# million-message soak on emulated hosts while rails go down and up.
#
#   long-checks.sh [--fuzz-time SECONDS] [--no-soak]
#
# --fuzz-time  seconds per harness (default 600: ten minutes clean each)
# --no-soak    leave the soak out (it needs root and a Release build, and
#              takes about 3 minutes)
#
# Each step runs whatever the others did; a table of their outcomes and
# times ends the run. Exit status: 0 when every step that ran passed, 1
# when one failed, 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzz_time=600
soak=true
while (($#)); do
  case "$1" in
    --fuzz-time)
      [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] ||
        { echo "long-checks.sh: --fuzz-time '${2:-}' is invalid: expected a whole number of seconds, at least 1" >&2; exit 2; }
      fuzz_time="$2"; shift 2 ;;
    --no-soak) soak=false; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "long-checks.sh: unknown argument '$1'; usage: $0 [--fuzz-time SECONDS] [--no-soak]" >&2; exit 2 ;;
  esac
done

names=()
outcomes=()
seconds=()
failed=0
# Runs one step (its name, then its command), noting how it ended.
step() {
  local name="$1"
  shift
  echo "=== ${name}: $* ==="
  local start status=0
  start=$(date +%s)
  "$@" || status=$?
  names+=("$name")
  seconds+=("$(($(date +%s) - start))")
  if [[ $status -eq 0 ]]; then
    outcomes+=(passed)
  else
    outcomes+=("failed (exit ${status})")
    failed=1
  fi
}

step fuzzing ./scripts/fuzz.sh --time "$fuzz_time" --jobs 2
step threadsanitizer ./scripts/tsan.sh
if $soak; then
  if [[ $(id -u) -ne 0 ]]; then
    names+=(soak); seconds+=(0); outcomes+=("skipped: needs root (network namespaces)")
  else
    step release-build bash -c 'cmake --preset release >/dev/null && cmake --build --preset release --parallel "$(nproc)" --target railyard-soak'
    step soak ./scripts/soak.sh
  fi
fi

echo
printf '%-16s %8s  %s\n' step seconds outcome
for i in "${!names[@]}"; do
  printf '%-16s %8s  %s\n' "${names[$i]}" "${seconds[$i]}" "${outcomes[$i]}"
done
exit "$failed"
