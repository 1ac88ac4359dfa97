#!/usr/bin/env bash
# Two emulated hosts joined by several NICs ("rails"), for multi-rail tests
# and benchmarks on one machine.
#
#   netns-rails.sh [--rails N] [--rate RATE] [--burst SIZE] [--timeout SECONDS]
#                  [--autocorking on|off] [--skip-unless-root] -- COMMAND [ARGS...]
#
# Creates network namespaces <name>-a and <name>-b joined by N veth pairs.
# Rail k (1..N) is ry<id>r<k>a = 198.18.k.1/24 in host a and ry<id>r<k>b =
# 198.18.k.2/24 in host b (198.18.0.0/15 is reserved for benchmarking).
# With --rate (e.g. 1gbit), both ends of every rail get a tbf qdisc at that
# rate; the kernel here has no netem, so delay cannot be emulated.
# TCP autocorking is off in both hosts unless --autocorking on: over veth
# and tbf, a corked socket here sometimes keeps ~100 KB it was handed unsent,
# with nothing in flight, for 10-170 ms (ss shows it as notsent), which a
# real NIC's transmit completion would release within microseconds. It hit
# libfabric's net provider with 2 hosts x 2 ranks; every program in the
# hosts, Open MPI's baseline too, gets the same setting.
#
# COMMAND runs in the root namespace under `timeout`, with:
#   RAILYARD_NETNS_A / RAILYARD_NETNS_B   the namespace names
#   RAILYARD_RAILS_A / RAILYARD_RAILS_B   comma lists of each host's rail addresses
#   RAILYARD_RAIL_SUBNETS                 comma list of the rail subnets
#   RAILYARD_RAIL_DEVICES_A / _B          comma lists of the veth names
# and may enter a host with `ip netns exec "$RAILYARD_NETNS_A" ...` or setns().
# The namespaces are removed on every exit; ones left by a run that was
# killed outright are removed by the next run.
#
# Exit status: COMMAND's, 124 on timeout, 77 when --skip-unless-root is given
# and this is not root (CTest's SKIP_RETURN_CODE), 2 on bad usage.
set -euo pipefail

rails=4
rate=""
burst=""
time_limit=600
autocorking=off
skip_unless_root=0

usage() {
  sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

fail_usage() {
  echo "netns-rails.sh: $1" >&2
  exit 2
}

while (($# > 0)); do
  case "$1" in
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

# Remove namespaces of earlier runs whose script is gone (killed by SIGKILL).
for stale in $(ip netns list | awk '{print $1}' | grep -E '^ry[0-9]+-[ab]$' || true); do
  owner=${stale#ry}
  owner=${owner%-*}
  if ! kill -0 "$owner" 2>/dev/null; then
    ip netns del "$stale" 2>/dev/null || true
    rm -rf "/tmp/${stale}.ompi"
  fi
done

id=$$
ns_a="ry${id}-a"
ns_b="ry${id}-b"

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  ip netns del "$ns_a" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
  # Open MPI's session directories of the daemons scripts/mpirun-netns-agent.sh
  # started in them.
  rm -rf "/tmp/${ns_a}.ompi" "/tmp/${ns_b}.ompi"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ip netns add "$ns_a"
ip netns add "$ns_b"
ip -n "$ns_a" link set lo up
ip -n "$ns_b" link set lo up
for ns in "$ns_a" "$ns_b"; do
  ip netns exec "$ns" sysctl -qw "net.ipv4.tcp_autocorking=$([[ $autocorking == on ]] && echo 1 || echo 0)"
done

rails_a=() rails_b=() subnets=() devices_a=() devices_b=()
for ((k = 1; k <= rails; k++)); do
  dev_a="ry${id}r${k}a"
  dev_b="ry${id}r${k}b"
  # Created in host a, the peer end moved to host b: nothing touches the root namespace.
  ip -n "$ns_a" link add "$dev_a" type veth peer name "$dev_b" netns "$ns_b"
  ip -n "$ns_a" addr add "198.18.${k}.1/24" dev "$dev_a"
  ip -n "$ns_b" addr add "198.18.${k}.2/24" dev "$dev_b"
  ip -n "$ns_a" link set "$dev_a" up
  ip -n "$ns_b" link set "$dev_b" up
  if [[ -n $rate ]]; then
    # tbf needs a bucket at least as large as the largest packet; veth hands
    # it segments of up to 64 KiB (GSO), so the default burst is 256 KiB.
    for end in "$ns_a:$dev_a" "$ns_b:$dev_b"; do
      ip netns exec "${end%%:*}" tc qdisc add dev "${end#*:}" root tbf rate "$rate" \
        burst "${burst:-256kb}" latency 50ms
    done
  fi
  rails_a+=("198.18.${k}.1")
  rails_b+=("198.18.${k}.2")
  subnets+=("198.18.${k}.0/24")
  devices_a+=("$dev_a")
  devices_b+=("$dev_b")
done

# A veth end reports carrier a moment after both ends are up; wait (bounded)
# until every rail is operationally up, so the command never sees it down.
deadline=$((SECONDS + 10))
for ((k = 0; k < rails; k++)); do
  for end in "$ns_a:${devices_a[k]}" "$ns_b:${devices_b[k]}"; do
    until grep -qw UP <<<"$(ip -n "${end%%:*}" -br link show dev "${end#*:}")"; do
      if ((SECONDS >= deadline)); then
        echo "netns-rails.sh: rail ${end#*:} did not come up within 10 s" >&2
        exit 1
      fi
      sleep 0.05
    done
  done
done

join() { local IFS=,; echo "$*"; }
export RAILYARD_NETNS_A="$ns_a" RAILYARD_NETNS_B="$ns_b"
RAILYARD_RAILS_A=$(join "${rails_a[@]}")
RAILYARD_RAILS_B=$(join "${rails_b[@]}")
RAILYARD_RAIL_SUBNETS=$(join "${subnets[@]}")
RAILYARD_RAIL_DEVICES_A=$(join "${devices_a[@]}")
RAILYARD_RAIL_DEVICES_B=$(join "${devices_b[@]}")
export RAILYARD_RAILS_A RAILYARD_RAILS_B RAILYARD_RAIL_SUBNETS RAILYARD_RAIL_DEVICES_A \
  RAILYARD_RAIL_DEVICES_B

echo "netns-rails: hosts $ns_a ($RAILYARD_RAILS_A) and $ns_b ($RAILYARD_RAILS_B)${rate:+, each rail shaped to $rate}" >&2
set +e
timeout --kill-after=10 "$time_limit" "$@"
status=$?
set -e
if ((status == 124)); then
  echo "netns-rails.sh: '$*' did not finish within $time_limit s" >&2
fi
exit "$status"
