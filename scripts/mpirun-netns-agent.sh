#!/usr/bin/env bash
# Open MPI's plm_rsh_agent for emulated hosts: starts a command "on" host
# `hosta` or `hostb` by running it inside that host's network namespace
# (RAILYARD_NETNS_A / RAILYARD_NETNS_B, set by scripts/netns-rails.sh).
# Usage (by mpirun): mpirun-netns-agent.sh <host> <command...>
set -euo pipefail
host=$1
shift
case "$host" in
  hosta) namespace=${RAILYARD_NETNS_A:?RAILYARD_NETNS_A is not set} ;;
  hostb) namespace=${RAILYARD_NETNS_B:?RAILYARD_NETNS_B is not set} ;;
  *)
    echo "mpirun-netns-agent.sh: unknown host '$host' (expected hosta or hostb)" >&2
    exit 1
    ;;
esac
exec ip netns exec "$namespace" /bin/sh -c "$*"
