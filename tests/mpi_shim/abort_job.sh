#!/usr/bin/env bash
# A rank calls MPI_Abort while the others wait in an MPI_Allreduce that the
# railyard shim carries: mpirun must end every rank, promptly, with a
# non-zero status, and leave no process behind.
#   abort_job.sh MPIRUN SHIM_LIBRARY PROGRAM   (PRELOAD_FIRST as run_shim_job.sh)
set -euo pipefail
# shellcheck source=job_processes.sh
source "$(dirname "$0")/job_processes.sh"
mpirun=$1 shim=$2 program=$3
status=0
output=$(timeout 120 "$mpirun" -np 3 --oversubscribe --allow-run-as-root --bind-to none -x "JOB_TAG=$JOB_TAG" \
  -x LD_PRELOAD="${PRELOAD_FIRST:+$PRELOAD_FIRST:}$shim" -x RAILYARD_MPI_VERBOSE=1 \
  "$program" abort 2>&1) || status=$?
fail() {
  echo "$output" | tail -n 30 >&2
  echo "FAILED: $*" >&2
  exit 1
}
[[ $status -ne 0 ]] || fail "mpirun exited 0 after MPI_Abort"
[[ $status -ne 124 ]] || fail "the job was still running after 120 s: MPI_Abort did not end it"
echo "$output" | grep "calling MPI_Abort" >/dev/null || fail "no rank reached MPI_Abort"
echo "$output" | grep "railyard carries" >/dev/null || fail "the shim was not active"
if echo "$output" | grep "FAILED" >/dev/null; then
  fail "a rank went on after MPI_Abort"
fi
left=$(live_processes)
if [[ -n $left ]]; then
  echo "$left" >&2
  fail "ranks outlived MPI_Abort"
fi
echo "ok: MPI_Abort ended every rank (mpirun status $status)"
