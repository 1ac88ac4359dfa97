#!/usr/bin/env bash
# The torch backend across the emulated hosts of scripts/netns-rails.sh:
# RANKS ranks spread over the two hosts (spawn.py --netns), rank 0's store
# and root on host a's first rail; each rank's rails from its own host's
# topology mapping. Runs SCRIPT (ops.py, ddp.py) and checks that every rank
# mapped all 4 of its host's rails.
#   netns-rails.sh --rails 4 -- netns.sh <python> <ranks> <script>
set -euo pipefail
python=$1 ranks=$2 script=$3
here=$(cd "$(dirname "$0")" && pwd)
master=${RAILYARD_RAILS_A%%,*}
output=$(MASTER_ADDR=$master RAILYARD_LOG=info "$python" "$here/spawn.py" --ranks "$ranks" \
  --timeout 100 --python "$python" --netns "$RAILYARD_NETNS_A,$RAILYARD_NETNS_B" \
  "$here/$script" 2>&1) || {
  echo "$output"
  echo "netns.sh: the job failed" >&2
  exit 1
}
grep -E '^\[rank 0\] [a-z_]+: |rail mapping' <<<"$output" | cut -c1-220
mapped=$(grep -cE 'rail mapping.*rails ry[0-9]+r[1-4][ab], ry[0-9]+r[1-4][ab], ry[0-9]+r[1-4][ab], ry[0-9]+r[1-4][ab]' <<<"$output" || true)
if [ "$mapped" -lt "$ranks" ]; then
  echo "netns.sh: $mapped of $ranks ranks logged a mapping of 4 rails" >&2
  exit 1
fi
echo "netns.sh: $ranks ranks on 2 emulated hosts ran $script over 4 rails each"
