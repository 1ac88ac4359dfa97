#!/usr/bin/env bash
# The soak: railyard-soak between two emulated hosts joined by
# rails shaped to a rate, while this script takes a random rail down at a
# random host and brings it back up every few seconds. Passes when every
# message arrived once, intact and in order (railyard-soak's verdict) and
# every rail was back up at the end.
#
#   soak.sh [--messages N] [--rails N] [--rate RATE] [--every MIN-MAX]
#           [--down MIN-MAX] [--seed S] [--build DIR] [--json FILE]
#           [--skip-unless-root]
#
# --messages   messages in all, half each way (default 1000000)
# --rails      rails between the hosts (default 4)
# --rate       each rail's rate, as netns-rails.sh takes it (default 1gbit)
# --every      seconds between one rail coming back and the next going down,
#              drawn from MIN-MAX (default 2-5)
# --down       seconds a rail stays down, drawn from MIN-MAX (default 1-4)
# --seed       railyard-soak's seed, and this script's draws (default 1)
# --build      the build tree with bin/railyard-soak (default build/release)
# --json       also write railyard-soak's reports there
#
# Only one rail is down at a time, so the hosts always have a path. Needs
# root (network namespaces); exit status 77 with --skip-unless-root
# otherwise, 2 on bad usage, railyard-soak's status else.
set -euo pipefail
cd "$(dirname "$0")/.."

messages=1000000
rails=4
rate=1gbit
every=2-5
down=1-4
seed=1
build=build/release
json=""
skip=""

fail_usage() {
  echo "soak.sh: $1" >&2
  exit 2
}
range_ok() { [[ $1 =~ ^[0-9]+-[0-9]+$ ]] && ((${1%-*} <= ${1#*-})); }

inner=0
while (($# > 0)); do
  case "$1" in
    --messages)
      [[ ${2:-} =~ ^[1-9][0-9]*$ ]] ||
        fail_usage "--messages '${2:-}' is invalid: expected a whole number of messages, at least 2"
      messages=$2; shift 2 ;;
    --rails)
      [[ ${2:-} =~ ^[2-9]$|^[1-5][0-9]$|^6[0-4]$ ]] ||
        fail_usage "--rails '${2:-}' is invalid: expected an integer from 2 to 64 (a rail must stay up)"
      rails=$2; shift 2 ;;
    --rate) rate=${2:-}; shift 2 ;;
    --every)
      range_ok "${2:-}" || fail_usage "--every '${2:-}' is invalid: expected MIN-MAX seconds, MIN at most MAX"
      every=$2; shift 2 ;;
    --down)
      range_ok "${2:-}" || fail_usage "--down '${2:-}' is invalid: expected MIN-MAX seconds, MIN at most MAX"
      down=$2; shift 2 ;;
    --seed)
      [[ ${2:-} =~ ^[0-9]+$ ]] || fail_usage "--seed '${2:-}' is invalid: expected a whole number"
      seed=$2; shift 2 ;;
    --build) build=${2:-}; shift 2 ;;
    --json) json=${2:-}; shift 2 ;;
    --skip-unless-root) skip=--skip-unless-root; shift ;;
    --inner) inner=1; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail_usage "unknown option '$1' (see --help)" ;;
  esac
done
build=$(realpath "${build}")
soak="${build}/bin/railyard-soak"
[[ -x "${soak}" ]] || fail_usage "${soak} is not built (build the release preset, or give --build)"

if ((inner == 0)); then
  # Time bound of the whole run: generous for the line rate (about 85 KB a
  # message on average), the flaps and the set-up.
  limit=$((600 + messages / 1000))
  exec scripts/netns-rails.sh --rails "${rails}" --rate "${rate}" --timeout "${limit}" ${skip} \
    -- "$(pwd)/scripts/soak.sh" --inner --messages "${messages}" --rails "${rails}" \
    --rate "${rate}" --every "${every}" \
    --down "${down}" --seed "${seed}" --build "${build}" ${json:+--json "${json}"}
fi

# Inside netns-rails.sh: the hosts exist, RAILYARD_* describe them.
IFS=, read -r -a devices_a <<<"${RAILYARD_RAIL_DEVICES_A}"
IFS=, read -r -a devices_b <<<"${RAILYARD_RAIL_DEVICES_B}"
RANDOM=${seed}
draw() { echo $((${1%-*} + RANDOM % (${1#*-} - ${1%-*} + 1))); }
set_link() {  # host (a|b), rail index, up|down
  local ns device
  if [[ $1 == a ]]; then ns=${RAILYARD_NETNS_A}; device=${devices_a[$2]}; else
    ns=${RAILYARD_NETNS_B}; device=${devices_b[$2]}; fi
  ip netns exec "${ns}" ip link set dev "${device}" "$3"
}
# shellcheck disable=SC2317 # run by the trap
restore_links() {
  for ((r = 0; r < rails; r++)); do
    set_link a "${r}" up || true
    set_link b "${r}" up || true
  done
}
trap 'restore_links; rm -f "${ready_file:-}" "${held:-}"' EXIT

ready_file=$(mktemp -u /tmp/railyard-soak-ready.XXXXXX)
# Not on a terminal (CTest), railyard-soak's output is held back and shown
# after its verdict, so a log cut short still shows the verdict.
held=""
if [[ ! -t 1 ]]; then
  held=$(mktemp /tmp/railyard-soak-log.XXXXXX)
fi
if [[ -n ${held} ]]; then
  "${soak}" --messages "${messages}" --seed "${seed}" --ready-file "${ready_file}" \
    ${json:+--json "${json}"} >"${held}" 2>&1 &
else
  "${soak}" --messages "${messages}" --seed "${seed}" --ready-file "${ready_file}" \
    ${json:+--json "${json}"} &
fi
soak_pid=$!
start=${SECONDS}
flaps=0
# No rail goes down before both hosts' endpoints are open and connected: a
# rail down then fails the set-up (its address names a downed interface),
# which tests nothing. The soak gives up on a side after 120 s.
while [[ ! -e ${ready_file} ]] && kill -0 "${soak_pid}" 2>/dev/null &&
  ((SECONDS - start < 150)); do
  sleep 0.2
done
rm -f "${ready_file}"
# One rail down at a time; the loop ends with the soak (whose own stall
# timeout bounds it) or at netns-rails.sh's time limit.
while kill -0 "${soak_pid}" 2>/dev/null; do
  sleep "$(draw "${every}")"
  kill -0 "${soak_pid}" 2>/dev/null || break
  rail=$((RANDOM % rails))
  host=$([[ $((RANDOM % 2)) == 0 ]] && echo a || echo b)
  seconds=$(draw "${down}")
  echo "soak.sh: at $((SECONDS - start)) s: rail $((rail + 1)) down at host ${host} for ${seconds} s" >&2
  set_link "${host}" "${rail}" down
  sleep "${seconds}"
  set_link "${host}" "${rail}" up
  flaps=$((flaps + 1))
done
status=0
wait "${soak_pid}" || status=$?
if [[ -n ${held} ]]; then
  grep -E '^# ([0-9]+ messages checked|host [ab]: first problem)' "${held}" || true
  echo "soak.sh: railyard-soak's output follows"
  cat "${held}"
fi
echo "soak.sh: ${flaps} rails taken down and brought back in $((SECONDS - start)) s" \
  "(every ${every} s, down ${down} s, ${rails} rails at ${rate:-their full rate}); railyard-soak exit ${status}"
exit "${status}"
