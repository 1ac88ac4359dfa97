#!/usr/bin/env bash
# Installs the dependencies, builds railyard (Release) and runs the demo: 4
# ranks started by railyard-run on this machine, an allreduce sweep from 8 B
# to 16 MiB in nccl-tests' columns, every result checked, and the bytes each
# rank sent over each of its two loopback rails. Shared memory is turned off
# so that the rails carry the traffic (RAILYARD_SHM=off); arguments replace
# the sweep's flags (railyard-bench --help).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release
cmake --build --preset release --parallel "$(nproc)"
if (($# == 0)); then
  set -- allreduce -b 8 -e 16M -f 4 -n 5 -w 1
fi
export FI_OFI_MRAIL_ADDR=127.0.0.1,127.0.0.2 RAILYARD_SHM=off
exec ./build/release/bin/railyard-run -n 4 --timeout 120 ./build/release/bin/railyard-bench "$@"
