#!/usr/bin/env bash
# Runs railyard's libFuzzer harnesses (fuzz/) for a given time each.
#
#   fuzz.sh [--time SECONDS] [--build DIR] [--jobs N] [--merge] [NAME...]
#
# Builds the `fuzz` preset (clang, ASan + UBSan) unless --build names a
# build tree that already has the harnesses, then runs each named harness
# (all of them without names) for --time seconds (default 30), one after
# the other, on its seed corpus fuzz/corpus/<NAME>/. New inputs go to a
# scratch directory, not the repository; --merge adds those that reach new
# coverage to the seed corpus (libFuzzer's -merge=1). A crash, leak,
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
build=""
merge=false
names=()
usage() {
  echo "usage: $0 [--time SECONDS] [--build DIR] [--merge] [NAME...]" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --time)
      [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] ||
        { echo "fuzz.sh: --time '${2:-}' is invalid: expected a whole number of seconds, at least 1" >&2; exit 2; }
      time_each="$2"; shift 2 ;;
    --build)
      [[ $# -ge 2 ]] || usage
      build="$2"; shift 2 ;;
    --merge) merge=true; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; usage ;;
    *) names+=("$1"); shift ;;
  esac
done

if [[ -z "$build" ]]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz --parallel "$(nproc)" >/dev/null
  build=build/fuzz
fi
mapfile -t all < <(sed -n 's/^  \([a-z_]*_fuzzer\))\{0,1\}$/\1/p' fuzz/CMakeLists.txt)
if ((${#names[@]} == 0)); then
  names=("${all[@]}")
fi
for name in "${names[@]}"; do
  if [[ ! " ${all[*]} " =~ " ${name} " ]]; then
    echo "fuzz.sh: there is no harness '${name}'; there are: ${all[*]}" >&2
    exit 2
  fi
  if [[ ! -x "${build}/fuzz/${name}" ]]; then
    echo "fuzz.sh: ${build}/fuzz/${name} is not built (build the 'fuzz' preset)" >&2
    exit 2
  fi
done

scratch=$(mktemp -d /tmp/railyard-fuzz.XXXXXX)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
printf '%-24s %8s %12s %10s %8s\n' harness seconds executions "cov edges" corpus
for name in "${names[@]}"; do
  seeds="fuzz/corpus/${name}"
  mkdir -p "${seeds}" "${scratch}/${name}/new" "${scratch}/${name}/crashes"
  log="${scratch}/${name}/log"
  status=0
  # libFuzzer stops itself after -max_total_time; the outer timeout only
  # bounds a harness that hangs outside an input's own -timeout.
  timeout $((time_each + 60)) "${build}/fuzz/${name}" \
    -max_total_time="${time_each}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="${scratch}/${name}/crashes/" \
    "${scratch}/${name}/new" "${seeds}" >"${log}" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "${log}" | tail -1)
  cov=$( (grep -o 'cov: [0-9]*' "${log}" || true) | tail -1 | cut -d' ' -f2)
  corpus=$( (grep -o 'corp: [0-9]*' "${log}" || true) | tail -1 | cut -d' ' -f2)
  printf '%-24s %8s %12s %10s %8s\n' "${name}" "${time_each}" "${runs:-?}" "${cov:-?}" "${corpus:-?}"
  if ((status != 0)); then
    failed=1
    echo "fuzz.sh: ${name} failed (exit ${status}); its log: ${log}" >&2
    grep -E 'ERROR|fuzz property failed|Test unit written|SUMMARY' "${log}" | head -5 >&2 || true
  elif [[ "${merge}" == true ]]; then
    "${build}/fuzz/${name}" -merge=1 "${seeds}" "${scratch}/${name}/new" >/dev/null 2>&1
  fi
done
if ((failed == 0)); then
  rm -rf "${scratch}"
fi
exit "${failed}"
