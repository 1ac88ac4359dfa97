#!/usr/bin/env bash
# The ring example across the two emulated hosts of scripts/netns-rails.sh:
# 4 ranks, 2 per host, started by Open MPI's mpirun through the netns agent
# and bootstrapped through PMIx; each rank's rails come from the topology
# mapping of its own host (no FI_OFI_MRAIL_ADDR). Checks the ring's result
# and that every rank mapped its own host's NICs, its share first.
#   netns-rails.sh --rails 4 -- netns_ring.sh <mpirun> <agent> <railyard-ring>
set -euo pipefail
mpirun=$1 agent=$2 ring=$3
first_subnet=${RAILYARD_RAIL_SUBNETS%%,*}
output=$(ip netns exec "$RAILYARD_NETNS_A" "$mpirun" --allow-run-as-root --host hosta:2,hostb:2 \
  -np 4 --bind-to none --mca plm_rsh_agent "$agent" --mca oob_tcp_if_include "$first_subnet" \
  -x RAILYARD_LOG=info "$ring" 2>&1) || {
  echo "$output"
  echo "netns_ring: mpirun failed" >&2
  exit 1
}
echo "$output" | grep -E 'ring:|rail mapping' | cut -c1-200
fail() {
  echo "netns_ring: $*" >&2
  exit 1
}
# Here-strings, not `echo | grep -q`: grep -q stops reading at the first
# match, and with pipefail the echo it left writing (SIGPIPE) failed the
# check on long outputs (the sanitizer build's).
grep -q 'every value is' <<<"$output" || fail "the ring did not complete"
# Rail k of host a is <prefix>r<k>a, of host b <prefix>r<k>b. With 4 NICs
# and 2 ranks per host, local rank 0's share starts at rail 1, rank 1's at 3.
for host in a b; do
  for local in 0 1; do
    home=$((local * 2 + 1))
    grep -qE "for local rank ${local} of 2 .*rails ry[0-9]+r${home}${host}, " <<<"$output" ||
      fail "local rank ${local} of host ${host} did not get rail ${home} of its host first"
  done
done
echo "netns_ring: 4 ranks on 2 emulated hosts passed the ring on their mapped rails"
