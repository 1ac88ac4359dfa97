#!/usr/bin/env bash
# Runs an MPI test program under mpirun without the railyard MPI shim, then
# with it (LD_PRELOAD, or a build of the program linked with it), and checks:
# both exit 0; the program's stdout (its digest of integer results) is the
# same; every rank says, at MPI_Finalize, that railyard carried each
# collective named in EXPECT_CARRIED; no process of the program is left.
#
# usage: run_shim_job.sh MPIRUN RANKS SHIM_LIBRARY PLAIN_PROGRAM [SHIM_PROGRAM]
#   SHIM_PROGRAM: the program linked with the shim (then no LD_PRELOAD).
# environment: EXPECT_CARRIED="allreduce bcast ..." (default: all twelve),
#   SHIM_ENV="VAR=value ..." passed to the ranks of the shim run,
#   PRELOAD_FIRST=lib: preloaded before the shim (the sanitizer build's
#   AddressSanitizer runtime, which must come first in the library list),
#   EXPECT_LOG="regex@regex": each must match a line of the shim run's stderr,
#   PROGRAM_ARGS="..." given to the program in both runs,
#   NETNS_AGENT=path: run on the emulated hosts of scripts/netns-rails.sh
#   (RAILYARD_HOSTS of them, as many ranks on each, started through that
#   plm_rsh_agent).
set -euo pipefail
# shellcheck source=job_processes.sh
source "$(dirname "$0")/job_processes.sh"

mpirun=$1
ranks=$2
shim=$3
plain=$4
linked=${5:-}
expect=${EXPECT_CARRIED-allreduce reduce bcast allgather reduce_scatter_block alltoall barrier gather scatter allgatherv alltoallv reduce_scatter}
read -r -a program_args <<<"${PROGRAM_ARGS:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ -n ${NETNS_AGENT:-} ]]; then
  hosts=${RAILYARD_HOSTS:-2}
  ((ranks % hosts == 0)) || { echo "FAILED: $ranks ranks do not spread evenly over $hosts hosts" >&2; exit 1; }
  host_list="" letters=(a b c d e f g h)
  for ((i = 0; i < hosts; i++)); do
    host_list+="${host_list:+,}host${letters[i]}:$((ranks / hosts))"
  done
  launch=(ip netns exec "$RAILYARD_NETNS_A" "$mpirun" --allow-run-as-root -np "$ranks" -x "JOB_TAG=$JOB_TAG"
          --host "$host_list" --bind-to none
          --mca plm_rsh_agent "$NETNS_AGENT" --mca oob_tcp_if_include "${RAILYARD_RAIL_SUBNETS%%,*}")
else
  launch=("$mpirun" -np "$ranks" --oversubscribe --allow-run-as-root --bind-to none
          -x "JOB_TAG=$JOB_TAG")
fi

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

run() {  # name, then mpirun's arguments after the launch options
  local name=$1
  shift
  local status=0
  timeout 300 "${launch[@]}" "$@" >"$work/$name.out" 2>"$work/$name.err" || status=$?
  if [[ $status -ne 0 ]]; then
    tail -n 40 "$work/$name.err" >&2
    fail "the $name run exited with status $status"
  fi
}

run plain "$plain" "${program_args[@]}"

shim_args=(-x RAILYARD_MPI_VERBOSE=1)
for assignment in ${SHIM_ENV:-}; do
  shim_args+=(-x "$assignment")
done
if [[ -n $linked ]]; then
  ldd "$linked" | grep librailyard_mpi >/dev/null || fail "$linked is not linked with librailyard_mpi"
  run shim "${shim_args[@]}" "$linked" "${program_args[@]}"
  program=$linked
else
  run shim "${shim_args[@]}" -x LD_PRELOAD="${PRELOAD_FIRST:+$PRELOAD_FIRST:}$shim" "$plain" "${program_args[@]}"
  program=$plain
fi

if ! diff -u "$work/plain.out" "$work/shim.out" >&2; then
  fail "the program's results differ with the shim"
fi
[[ -s $work/plain.out ]] || fail "the program printed no results"

totals=$(grep -c "MPI shim: rank [0-9]*: railyard carried" "$work/shim.err" || true)
[[ $totals -eq $ranks ]] || {
  tail -n 40 "$work/shim.err" >&2
  fail "$totals of $ranks ranks reported their totals at MPI_Finalize"
}
for collective in $expect; do
  carried=$(grep "railyard carried" "$work/shim.err" | sed 's/; MPI carried.*//' |
              grep -c "[ ,]$collective [1-9]" || true)
  [[ $carried -eq $ranks ]] || {
    grep "railyard carried" "$work/shim.err" >&2
    fail "railyard carried $collective on $carried of $ranks ranks"
  }
done

IFS='@' read -r -a patterns <<<"${EXPECT_LOG:-}"
for pattern in "${patterns[@]}"; do
  grep -qE -- "$pattern" "$work/shim.err" || {
    tail -n 20 "$work/shim.err" >&2
    fail "no line of the shim run's stderr matches '$pattern'"
  }
done

# mpirun has returned: nothing of the job may still run.
left=$(live_processes)
if [[ -n $left ]]; then
  echo "$left" >&2
  fail "processes of $program outlived mpirun"
fi
echo "ok: $ranks ranks, same results with and without the shim; carried: $expect"
