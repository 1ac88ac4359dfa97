#!/usr/bin/env bash
# Runs railyard's libFuzzer harnesses (fuzz/) for a given time each.
#
#   fuzz.sh [--time SECONDS] [--build DIR] [--jobs N] [--merge] [NAME...]
#
# Builds the `fuzz` preset (clang, ASan + UBSan) unless --build names a
# build tree that already has the harnesses, then runs each named harness
# (all of them without names) for --time seconds (default 30), one after
# the other (--jobs N: N at a time, default 1), on its seed corpus
# fuzz/corpus/<NAME>/. New inputs go to a scratch directory, not the
# repository; --merge adds those that reach new coverage to the seed corpus
# (libFuzzer's -merge=1). A crash, leak,
# sanitizer report or timeout (10 s for one input) stops that harness; the
# input is saved under the scratch directory and named in the output, and
# the script exits 1 after the others ran. Prints, per harness, the
# executions, the edges covered (libFuzzer's cov) and the corpus size.
#
# Exit status: 0 when every harness ran its time clean, 1 when one failed,
# 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

time_each=30
parallel=1
build=""
merge=false
names=()
usage() {
  echo "usage: $0 [--time SECONDS] [--build DIR] [--jobs N] [--merge] [NAME...]" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --time)
      [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] ||
        { echo "fuzz.sh: --time '${2:-}' is invalid: expected a whole number of seconds, at least 1" >&2; exit 2; }
      time_each="$2"; shift 2 ;;
    --jobs)
      [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] ||
        { echo "fuzz.sh: --jobs '${2:-}' is invalid: expected a whole number of harnesses at a time, at least 1" >&2; exit 2; }
      parallel="$2"; shift 2 ;;
    --build)
      [[ $# -ge 2 ]] || usage
      build="$2"; shift 2 ;;
    --merge) merge=true; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; usage ;;
    *) names+=("$1"); shift ;;
  esac
done

mapfile -t all < <(sed -n 's/^  \([a-z_]*_fuzzer\))\{0,1\}$/\1/p' fuzz/CMakeLists.txt)
if ((${#names[@]} == 0)); then
  names=("${all[@]}")
fi
for name in "${names[@]}"; do
  # shellcheck disable=SC2076 # a whole word of the list, not a regex
  if [[ ! " ${all[*]} " =~ " ${name} " ]]; then
    echo "fuzz.sh: there is no harness '${name}'; there are: ${all[*]}" >&2
    exit 2
  fi
done

if [[ -z "$build" ]]; then
  mkdir -p build
  # Only the harnesses asked for and what they link: the preset's other
  # targets (the MPI shim) are not fuzzed, and CI waits for this build.
  if ! { cmake --preset fuzz &&
    cmake --build --preset fuzz --parallel "$(nproc)" --target "${names[@]}"; } \
    >build/fuzz-build.log 2>&1; then
    tail -40 build/fuzz-build.log >&2
    echo "fuzz.sh: building the fuzz preset failed; the whole log: build/fuzz-build.log" >&2
    exit 1
  fi
  build=build/fuzz
fi
for name in "${names[@]}"; do
  if [[ ! -x "${build}/fuzz/${name}" ]]; then
    echo "fuzz.sh: ${build}/fuzz/${name} is not built (build the 'fuzz' preset)" >&2
    exit 2
  fi
done

scratch=$(mktemp -d /tmp/railyard-fuzz.XXXXXX)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Runs one harness; its line of the table goes to <scratch>/<name>/row, and
# its exit status is the harness's.
fuzz_one() {
  local name=$1 seeds="fuzz/corpus/$1" log="${scratch}/$1/log" status=0
  mkdir -p "${seeds}" "${scratch}/${name}/new" "${scratch}/${name}/crashes"
  # libFuzzer stops itself after -max_total_time; the outer timeout only
  # bounds a harness that hangs outside an input's own -timeout.
  timeout $((time_each + 60)) "${build}/fuzz/${name}" \
    -max_total_time="${time_each}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="${scratch}/${name}/crashes/" \
    "${scratch}/${name}/new" "${seeds}" >"${log}" 2>&1 || status=$?
  local runs cov corpus
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "${log}" | tail -1)
  cov=$( (grep -o 'cov: [0-9]*' "${log}" || true) | tail -1 | cut -d' ' -f2)
  corpus=$( (grep -o 'corp: [0-9]*' "${log}" || true) | tail -1 | cut -d' ' -f2)
  printf '%-24s %8s %12s %10s %8s\n' "${name}" "${time_each}" "${runs:-?}" "${cov:-?}" \
    "${corpus:-?}" >"${scratch}/${name}/row"
  return "${status}"
}

failed=0
declare -A pid_of=()
running=0
for name in "${names[@]}"; do
  if ((running >= parallel)); then
    wait -n || true  # each status is read again below, by pid
    running=$((running - 1))
  fi
  fuzz_one "${name}" &
  pid_of[${name}]=$!
  running=$((running + 1))
done
printf '%-24s %8s %12s %10s %8s\n' harness seconds executions "cov edges" corpus
for name in "${names[@]}"; do
  status=0
  wait "${pid_of[${name}]}" || status=$?
  cat "${scratch}/${name}/row" 2>/dev/null || echo "${name}: no result"
  if ((status != 0)); then
    failed=1
    echo "fuzz.sh: ${name} failed (exit ${status}); its log: ${scratch}/${name}/log" >&2
    grep -E 'ERROR|fuzz property failed|Test unit written|SUMMARY' "${scratch}/${name}/log" |
      head -5 >&2 || true
  elif [[ "${merge}" == true ]]; then
    "${build}/fuzz/${name}" -merge=1 "fuzz/corpus/${name}" "${scratch}/${name}/new" >/dev/null 2>&1
  fi
done
if ((failed == 0)); then
  rm -rf "${scratch}"
fi
exit "${failed}"
