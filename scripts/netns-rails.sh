#!/usr/bin/env bash
# Emulated hosts joined by several NICs ("rails"), for multi-rail tests and
# benchmarks on one machine.
#
#   netns-rails.sh [--hosts N] [--rails N] [--switch] [--rate RATE] [--burst SIZE]
#                  [--timeout SECONDS] [--autocorking on|off] [--skip-unless-root]
#                  -- COMMAND [ARGS...]
#
# Creates one network namespace per host, <name>-a, <name>-b, ... (--hosts,
# 2 to 8, default 2), each with N rails (--rails, default 4). Rail k (1..N)
# of host number i (a = 1, b = 2, ...) is ry<id>r<k><host> = 198.18.k.i/24
# (198.18.0.0/15 is reserved for benchmarking). Two hosts are cabled back to
# back, one veth pair per rail; with three or more hosts, or --switch, each
# rail is a switch: a bridge in a namespace of its own, <name>-s<k>, with a
# port per host. With --rate (e.g. 1gbit), both directions of every host's
# link get a tbf qdisc at that rate (the host's end and, behind a switch,
# the switch's port); the kernel here has no netem, so delay cannot be
# emulated.
# TCP autocorking is off in every host unless --autocorking on: over veth
# and tbf, a corked socket here sometimes keeps ~100 KB it was handed unsent,
# with nothing in flight, for 10-170 ms (ss shows it as notsent), which a
# real NIC's transmit completion would release within microseconds. It hit
# libfabric's net provider with 2 hosts x 2 ranks; every program in the
# hosts, Open MPI's baseline too, gets the same setting.
#
# COMMAND runs in the root namespace under `timeout`, with, for each host
# letter X (A, B, C ...):
#   RAILYARD_HOSTS                        the number of hosts
#   RAILYARD_NETNS_X                      the host's namespace name
#   RAILYARD_NETNS_ALL                    comma list of every host's namespace
#   RAILYARD_RAILS_X                      comma list of the host's rail addresses
#   RAILYARD_RAIL_DEVICES_X               comma list of the host's veth names
#   RAILYARD_RAIL_SUBNETS                 comma list of the rail subnets
# and may enter a host with `ip netns exec "$RAILYARD_NETNS_A" ...` or setns().
# The namespaces are removed on every exit; ones left by a run that was
# killed outright are removed by the next run.
#
# Exit status: COMMAND's, 124 on timeout, 77 when --skip-unless-root is given
# and this is not root (CTest's SKIP_RETURN_CODE), 2 on bad usage.
set -euo pipefail

hosts=2
rails=4
switched=0
rate=""
burst=""
time_limit=600
autocorking=off
skip_unless_root=0

usage() {
  sed -n '2,39p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

fail_usage() {
  echo "netns-rails.sh: $1" >&2
  exit 2
}

while (($# > 0)); do
  case "$1" in
    --hosts)
      [[ ${2:-} =~ ^[2-8]$ ]] || fail_usage "--hosts '${2:-}' is invalid: expected an integer from 2 to 8"
      hosts=$2
      shift 2
      ;;
    --switch)
      switched=1
      shift
      ;;
    --rails)
      [[ ${2:-} =~ ^[1-9][0-9]*$ && $2 -le 64 ]] ||
        fail_usage "--rails '${2:-}' is invalid: expected an integer from 1 to 64"
      rails=$2
      shift 2
      ;;
    --rate)
      [[ ${2:-} =~ ^[0-9]+(\.[0-9]+)?([kmg]?bit)$ ]] ||
        fail_usage "--rate '${2:-}' is invalid: expected a tc rate such as 1gbit or 500mbit"
      rate=$2
      shift 2
      ;;
    --burst)
      [[ ${2:-} =~ ^[0-9]+[kmg]?b?$ ]] ||
        fail_usage "--burst '${2:-}' is invalid: expected a tc size such as 512kb"
      burst=$2
      shift 2
      ;;
    --timeout)
      [[ ${2:-} =~ ^[1-9][0-9]*$ ]] ||
        fail_usage "--timeout '${2:-}' is invalid: expected a positive number of seconds"
      time_limit=$2
      shift 2
      ;;
    --autocorking)
      [[ ${2:-} == on || ${2:-} == off ]] ||
        fail_usage "--autocorking '${2:-}' is invalid: expected on or off"
      autocorking=$2
      shift 2
      ;;
    --skip-unless-root)
      skip_unless_root=1
      shift
      ;;
    --)
      shift
      break
      ;;
    -h | --help) usage ;;
    *) fail_usage "unknown argument '$1' (see --help)" ;;
  esac
done
(($# > 0)) || fail_usage "no command given after --"

if ((EUID != 0)); then
  if ((skip_unless_root)); then
    echo "SKIP: emulated multi-NIC hosts need root (network namespaces, veth, tc); run as root to include this test"
    exit 77
  fi
  echo "netns-rails.sh: needs root to create network namespaces" >&2
  exit 1
fi
for tool in ip tc timeout; do
  command -v "$tool" >/dev/null || { echo "netns-rails.sh: '$tool' is missing (Debian package iproute2 / coreutils)" >&2; exit 1; }
done

((hosts > 2)) && switched=1
letters=(a b c d e f g h)

# Remove namespaces of earlier runs whose script is gone (killed by SIGKILL).
for stale in $(ip netns list | awk '{print $1}' | grep -E '^ry[0-9]+-([a-h]|s[0-9]+)$' || true); do
  owner=${stale#ry}
  owner=${owner%%-*}
  if ! kill -0 "$owner" 2>/dev/null; then
    ip netns del "$stale" 2>/dev/null || true
    rm -rf "/tmp/${stale}.ompi"
  fi
done

id=$$
host_namespaces=() switch_namespaces=()
for ((i = 0; i < hosts; i++)); do
  host_namespaces+=("ry${id}-${letters[i]}")
done
if ((switched)); then
  for ((k = 1; k <= rails; k++)); do
    switch_namespaces+=("ry${id}-s${k}")
  done
fi

# shellcheck disable=SC2317 # run by the trap
cleanup() {
  local status=$? ns
  trap - EXIT INT TERM
  for ns in "${host_namespaces[@]}" "${switch_namespaces[@]}"; do
    ip netns del "$ns" 2>/dev/null || true
  done
  # Open MPI's session directories of the daemons scripts/mpirun-netns-agent.sh
  # started in them.
  for ns in "${host_namespaces[@]}"; do
    rm -rf "/tmp/${ns}.ompi"
  done
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for ns in "${host_namespaces[@]}" "${switch_namespaces[@]}"; do
  ip netns add "$ns"
  ip -n "$ns" link set lo up
done
for ns in "${host_namespaces[@]}"; do
  ip netns exec "$ns" sysctl -qw "net.ipv4.tcp_autocorking=$([[ $autocorking == on ]] && echo 1 || echo 0)"
done

# tbf needs a bucket at least as large as the largest packet; veth hands it
# segments of up to 64 KiB (GSO), so the default burst is 256 KiB.
shape() {  # namespace device
  [[ -z $rate ]] || ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "$rate" \
    burst "${burst:-256kb}" latency 50ms
}

subnets=()
declare -A rail_addresses=() rail_devices=()
for ((k = 1; k <= rails; k++)); do
  subnets+=("198.18.${k}.0/24")
  if ((switched)); then
    switch=${switch_namespaces[k - 1]}
    ip -n "$switch" link add "rail$k" type bridge
    ip -n "$switch" link set "rail$k" up
  fi
  for ((i = 0; i < hosts; i++)); do
    ns=${host_namespaces[i]} device="ry${id}r${k}${letters[i]}"
    if ((switched)); then
      # Created in the host, the port end moved into the switch: nothing
      # touches the root namespace.
      ip -n "$ns" link add "$device" type veth peer name "${device}p" netns "$switch"
      ip -n "$switch" link set "${device}p" master "rail$k"
      ip -n "$switch" link set "${device}p" up
      shape "$switch" "${device}p"
    elif ((i == 0)); then
      # Back to back: host b's end is created here, as host a's peer.
      ip -n "$ns" link add "$device" type veth peer name "ry${id}r${k}b" netns "${host_namespaces[1]}"
    fi
    ip -n "$ns" addr add "198.18.${k}.$((i + 1))/24" dev "$device"
    ip -n "$ns" link set "$device" up
    shape "$ns" "$device"
    rail_addresses[$i]+="${rail_addresses[$i]:+,}198.18.${k}.$((i + 1))"
    rail_devices[$i]+="${rail_devices[$i]:+,}${device}"
  done
done

# A veth end reports carrier a moment after both ends are up; wait (bounded)
# until every rail is operationally up, so the command never sees it down.
deadline=$((SECONDS + 10))
for ((i = 0; i < hosts; i++)); do
  IFS=, read -r -a devices <<<"${rail_devices[$i]}"
  for device in "${devices[@]}"; do
    until grep -qw UP <<<"$(ip -n "${host_namespaces[i]}" -br link show dev "$device")"; do
      if ((SECONDS >= deadline)); then
        echo "netns-rails.sh: rail $device did not come up within 10 s" >&2
        exit 1
      fi
      sleep 0.05
    done
  done
done

join() { local IFS=,; echo "$*"; }
described=()
export RAILYARD_HOSTS=$hosts
for ((i = 0; i < hosts; i++)); do
  letter=${letters[i]^^}
  export "RAILYARD_NETNS_${letter}=${host_namespaces[i]}"
  export "RAILYARD_RAILS_${letter}=${rail_addresses[$i]}"
  export "RAILYARD_RAIL_DEVICES_${letter}=${rail_devices[$i]}"
  described+=("${host_namespaces[i]} (${rail_addresses[$i]})")
done
RAILYARD_NETNS_ALL=$(join "${host_namespaces[@]}")
RAILYARD_RAIL_SUBNETS=$(join "${subnets[@]}")
export RAILYARD_NETNS_ALL RAILYARD_RAIL_SUBNETS

echo "netns-rails: hosts ${described[*]}${rate:+, each rail shaped to $rate}$( ((switched)) && echo ", a switch per rail")" >&2
set +e
timeout --kill-after=10 "$time_limit" "$@"
status=$?
set -e
if ((status == 124)); then
  echo "netns-rails.sh: '$*' did not finish within $time_limit s" >&2
fi
exit "$status"
