#!/usr/bin/env bash
# How long after its processes start a job of N ranks is ready, in
# interleaved rounds on this machine:
#   root       railyard-run -n N railyard-bootstrap-bench      (root rendezvous)
#   pmix       mpirun -np N --oversubscribe --bind-to none railyard-bootstrap-bench (PMIx)
#   mpi        mpirun -np N --oversubscribe --bind-to none railyard-mpi-init-time   (MPI_Init, the baseline)
#   libfabric  railyard-run -n N railyard-fabric-open-time     (the floor: N processes that
#              only open the endpoints a rank opens, a rail of RAILYARD_PROVIDER's provider
#              (net unless set) and shm, exchanging nothing)
# Each figure is the slowest rank's; the table gives each way's median over
# the rounds and its ratio to MPI_Init's. The libfabric floor runs with
# FI_OFI_RXM_MSG_RX_SIZE as railyard sets it for tcp;ofi_rxm rails (256
# unless already set; providers without ofi_rxm ignore it).
#
#   bootstrap-bench.sh [--ranks N] [--rounds R] [--build DIR]
#
# Exit status: 0, 1 when a run failed, 2 on bad usage.
set -euo pipefail

ranks=8
rounds=5
build="$(cd "$(dirname "$0")/.." && pwd)/build/release"

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

positive() {  # name value
  [[ "$2" =~ ^[1-9][0-9]*$ && "$2" -le 64 ]] ||
    { echo "bootstrap-bench.sh: $1 '$2' is invalid: expected a whole number from 1 to 64" >&2; exit 2; }
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) positive --ranks "${2-}"; ranks="$2"; shift 2 ;;
    --rounds) positive --rounds "${2-}"; rounds="$2"; shift 2 ;;
    --build) build="${2-}"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "bootstrap-bench.sh: unknown argument '$1'" >&2; usage ;;
  esac
done

bench="$build/bin/railyard-bootstrap-bench"
baseline="$build/bin/railyard-mpi-init-time"
floor="$build/bin/railyard-fabric-open-time"
launcher="$build/bin/railyard-run"
for program in "$bench" "$baseline" "$floor" "$launcher"; do
  [[ -x "$program" ]] || { echo "bootstrap-bench.sh: $program is missing: build first (--build DIR)" >&2; exit 2; }
done
command -v mpirun >/dev/null || { echo "bootstrap-bench.sh: mpirun not found (Debian: openmpi-bin)" >&2; exit 2; }

mpirun_flags=(-np "$ranks" --oversubscribe --bind-to none)
[[ $(id -u) -eq 0 ]] && mpirun_flags+=(--allow-run-as-root)

declare -A commands=(
  [root]="$launcher -n $ranks --timeout 120 $bench --label root"
  [pmix]="timeout 120 mpirun ${mpirun_flags[*]} $bench --label pmix"
  [mpi]="timeout 120 mpirun ${mpirun_flags[*]} $baseline MPI_Init"
  [libfabric]="env FI_OFI_RXM_MSG_RX_SIZE=${FI_OFI_RXM_MSG_RX_SIZE:-256} $launcher -n $ranks --timeout 120 $floor ${RAILYARD_PROVIDER:-net} shm"
)
ways=(root pmix mpi libfabric)
declare -A ready world

slowest() {  # field lines: the largest value of field=... among the lines
  sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$2" | sort -n | tail -1
}

for ((round = 1; round <= rounds; ++round)); do
  for way in "${ways[@]}"; do
    echo "bootstrap-bench.sh: round $round/$rounds: $way" >&2
    # One line from rank 0 (the slowest rank's figures), or one per process
    # for the floor: the slowest is kept either way.
    if ! lines=$(${commands[$way]} 2>/tmp/bootstrap-bench.$$.err | grep -o 'RESULT label=.*'); then
      echo "bootstrap-bench.sh: $way failed: ${commands[$way]}" >&2
      cat /tmp/bootstrap-bench.$$.err >&2
      rm -f /tmp/bootstrap-bench.$$.err
      exit 1
    fi
    ready[$way]+="$(slowest ready_after_start_ms "$lines") "
    world[$way]+="$(slowest world_ms "$lines") "
  done
done
rm -f /tmp/bootstrap-bench.$$.err

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "# bootstrap of $ranks ranks on $(hostname), median of $rounds interleaved rounds (slowest rank each)"
echo "# ready: ms from process start (kernel start time, 10 ms ticks) until the communicator"
echo "#        (MPI: MPI_Init) returned; init: ms inside Communicator::world() (MPI_Init)"
printf '%-10s %10s %10s %14s %14s   %s\n' way ready_ms init_ms ready/MPI_Init init/MPI_Init command
base_ready=$(median "${ready[mpi]}")
base_world=$(median "${world[mpi]}")
for way in "${ways[@]}"; do
  r=$(median "${ready[$way]}")
  w=$(median "${world[$way]}")
  printf '%-10s %10.1f %10.1f %14.2f %14.2f   %s\n' "$way" "$r" "$w" \
    "$(awk -v a="$r" -v b="$base_ready" 'BEGIN {print a / b}')" \
    "$(awk -v a="$w" -v b="$base_world" 'BEGIN {print a / b}')" "${commands[$way]}"
done
