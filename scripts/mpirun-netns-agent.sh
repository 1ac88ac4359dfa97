#!/usr/bin/env bash
# Open MPI's plm_rsh_agent for emulated hosts: starts a command "on" host
# `hosta`, `hostb` ... by running it inside that host's network namespace
# (RAILYARD_NETNS_A, RAILYARD_NETNS_B ..., set by scripts/netns-rails.sh).
# Usage (by mpirun): mpirun-netns-agent.sh <host> <command...>
set -euo pipefail
host=$1
shift
variable=""
[[ $host =~ ^host([a-h])$ ]] && variable=RAILYARD_NETNS_${BASH_REMATCH[1]^^}
if [[ -z $variable || -z ${!variable:-} ]]; then
  echo "mpirun-netns-agent.sh: unknown host '$host': expected hosta, hostb ..., one per host of scripts/netns-rails.sh${variable:+ ($variable is not set)}" >&2
  exit 1
fi
namespace=${!variable}
# Both emulated hosts are this machine, with one hostname and one /tmp, so
# their Open MPI daemons would share the session directory and both map the
# hwloc topology file jf.<job>/hwloc.sm there, each at an address of its
# own: now and then one crashed in hwloc_shmem_topology_write (a
# segmentation fault while it started). rtc_hwloc_vmhole=none turns that
# sharing off; the ranks read the topology themselves. And both daemons
# created the same session directory tree at once (/tmp/ompi.<host>.<uid>/
# jf.<job>/0), and now and then one lost the race with "File exists": each
# host's daemon gets a temporary directory of its own, which
# scripts/netns-rails.sh removes with the namespace.
# And each host gets a UTS namespace with its own host name (hosta,
# hostb ...): under one name Open MPI took the ranks of both hosts for
# neighbours, and with --mca btl tcp,vader,self a rank crashed.
session_base="/tmp/${namespace}.ompi"
mkdir -p "$session_base"
exec ip netns exec "$namespace" unshare --uts /bin/sh -c 'hostname "$1" && shift && exec "$@"' \
  agent "$host" env OMPI_MCA_rtc_hwloc_vmhole=none OMPI_MCA_orte_tmpdir_base="$session_base" \
  /bin/sh -c "$*"
