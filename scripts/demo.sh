#!/usr/bin/env bash
# Installs the dependencies, builds railyard (Release) and shows what its
# rails buy. As root: two emulated hosts (network namespaces, 4 rails of
# 1 Gbit/s each, scripts/netns-rails.sh) run railyard's allreduce from 8 B
# to 16 MiB, Open MPI's over the same rails and railyard's on one rail, in 3
# interleaved rounds; it prints an nccl-tests table with the ratios, the
# bytes each rank moved over each rail, and writes a PNG plot (its path is
# printed). Without root, which the namespaces need: 4 ranks on this
# machine over two loopback rails, the same table for railyard alone.
set -euo pipefail
cd "$(dirname "$0")/.."
if (($#)); then
  echo "demo.sh: takes no arguments (got '$*'); scripts/collectives-vs-openmpi.sh --help has the knobs" >&2
  exit 2
fi
./scripts/install-deps.sh
cmake --preset release
cmake --build --preset release --parallel "$(nproc)"
build=$PWD/build/release

if ((EUID != 0)); then
  echo "demo.sh: not root, so no emulated hosts (network namespaces need root): 4 ranks on this" \
    "machine over two loopback rails instead, shared memory off so the rails carry the data" >&2
  export FI_OFI_MRAIL_ADDR=127.0.0.1,127.0.0.2 RAILYARD_SHM=off
  exec "$build/bin/railyard-run" -n 4 --timeout 120 "$build/bin/railyard-bench" \
    allreduce -b 8 -e 16M -f 4 -n 5 -w 1
fi

out=$PWD/build/demo
echo "demo.sh: 2 emulated hosts x 1 rank, 4 rails at 1 Gbit/s: railyard against Open MPI and" \
  "against railyard on one rail, 3 rounds (about 3 minutes)" >&2
./scripts/collectives-vs-openmpi.sh --layout 2x1 --min 8 --max 16M --factor 4 --rounds 3 \
  --iters 10 --setting one-rail=RAILYARD_RAILS=1 --out "$out" >"$out.log" || {
  cat "$out.log"
  echo "demo.sh: the comparison failed (its files: $out)" >&2
  exit 1
}
# The out-of-place table, railyard's rails, then where the plot went.
awk '/^# allreduce, .*out-of-place/ { on = 1 } on && /^# wrong elements/ { print; exit } on' "$out.log"
echo "#"
awk '/^# Bytes over each rail/ { on = 1 } on && /^#/ { print } on && !/^#/ { exit }' \
  "$out/rounds/railyard-1.csv.log"
echo "#"
echo "# plot: $out/allreduce-2x1.png"
echo "# every table, and how each subject was launched: $out.log"
