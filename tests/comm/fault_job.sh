#!/usr/bin/env bash
# Faults users meet, on a job of 4 ranks over two loopback rails with shared
# memory off, started as users start one:
#   fault_job.sh LAUNCH SCENARIO ...
# LAUNCH:
#   run RAILYARD_RUN RAILYARD_BENCH      railyard-run starting railyard-bench
#   mpi MPIRUN SHIM_LIBRARY MPI_BENCH    mpirun starting railyard-bench-mpi
#                                        with the MPI shim preloaded
# SCENARIO:
#   pause     rank 2 is stopped for 5 s mid-sweep, then continued: the job
#             finishes, every check right.
#   stop      rank 2 is stopped for good, RAILYARD_TIMEOUT=8s: the job ends
#             within 20 s of the stop, and the errors name rank 2.
#   disagree  rank 2 has another RAILYARD_ALGO: the job is refused within
#             10 s, naming the variable and the ranks.
set -euo pipefail
launch=$1
shift
case "$launch" in
  run) runner=$1 bench=$2 scenario=$3 ;;
  mpi) mpirun=$1 shim=$2 bench=$3 scenario=$4 ;;
  *) echo "fault_job.sh: LAUNCH '$launch' is invalid: expected run or mpi" >&2; exit 2 ;;
esac
tag="railyard-fault-job-$$-$RANDOM"
out=$(mktemp -d)
trap 'pkill -KILL -f "$tag" 2>/dev/null || true; rm -rf "$out"' EXIT

fail() {
  tail -n 40 "$out/err" >&2 || true
  tail -n 10 "$out/out" >&2 || true
  echo "FAILED ($launch $scenario): $*" >&2
  exit 1
}

# The pid of the job's rank `rank` (its environment carries the tag), or ''.
rank_pid() {
  local environ pid
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    if { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -x "FAULT_JOB_TAG=$tag" >/dev/null &&
       { tr '\0' '\n' <"$environ"; } 2>/dev/null |
         grep -xE "(RAILYARD_RANK|OMPI_COMM_WORLD_RANK)=$1" >/dev/null; then
      [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == *bench* ]] && { echo "$pid"; return; }
    fi
  done
}

export FAULT_JOB_TAG=$tag RAILYARD_SHM=off FI_OFI_MRAIL_ADDR=127.0.0.1,127.0.0.2
sweep=(allreduce -b 1M -e 2M -f 2 -n 200 -w 2 -c 1)
wrapper=()
if [[ $scenario == disagree ]]; then
  # Rank 2 alone runs with another algorithm table.
  wrapper=(sh -c 'if [ "${RAILYARD_RANK:-$OMPI_COMM_WORLD_RANK}" = 2 ]; then
    export RAILYARD_ALGO=allreduce:0-inf:ring; fi; exec "$0" "$@"')
fi
if [[ $scenario == stop ]]; then
  export RAILYARD_TIMEOUT=8s
fi
if [[ $launch == run ]]; then
  command=("$runner" -n 4 --timeout 300 "${wrapper[@]}" "$bench" "${sweep[@]}")
else
  command=("$mpirun" -np 4 --oversubscribe --allow-run-as-root --bind-to none
    -x FAULT_JOB_TAG -x RAILYARD_SHM -x FI_OFI_MRAIL_ADDR -x RAILYARD_MPI_MIN_BYTES=0
    -x "LD_PRELOAD=${PRELOAD_FIRST:+$PRELOAD_FIRST:}$shim")
  [[ $scenario != stop ]] || command+=(-x RAILYARD_TIMEOUT)
  command+=("${wrapper[@]}" "$bench" "${sweep[@]}")
fi
start=$(date +%s%3N)
timeout 300 "${command[@]}" >"$out/out" 2>"$out/err" &
job=$!

if [[ $scenario == disagree ]]; then
  status=0
  wait "$job" || status=$?
  elapsed=$(($(date +%s%3N) - start))
  [[ $status -ne 0 ]] || fail "the job ran although rank 2 set another RAILYARD_ALGO"
  ((elapsed < 10000)) || fail "the refusal took ${elapsed} ms, more than 10 s"
  grep -q "RAILYARD_ALGO='.*' is invalid: expected the same value on every rank" "$out/err" ||
    fail "no error named RAILYARD_ALGO"
  grep -q "'allreduce:0-inf:ring' on rank 2" "$out/err" || fail "the error did not name rank 2"
  echo "ok: refused in ${elapsed} ms naming RAILYARD_ALGO and the ranks"
  exit 0
fi

# Rank 2, once the sweep has started (its first row is out).
deadline=$((SECONDS + 120))
until grep -qE "^(\[0\] )? *1048576 " "$out/out" 2>/dev/null; do
  ((SECONDS < deadline)) || fail "the sweep did not start within 120 s"
  kill -0 "$job" 2>/dev/null || fail "the job ended before the sweep started"
  sleep 0.1
done
pid=$(rank_pid 2)
[[ -n $pid ]] || fail "rank 2's process was not found"
kill -STOP "$pid"
stopped=$(date +%s%3N)
if [[ $scenario == pause ]]; then
  sleep 5
  kill -CONT "$pid"
  status=0
  wait "$job" || status=$?
  [[ $status -eq 0 ]] || fail "the job failed (status $status) after rank 2 paused for 5 s"
  grep -q "Out of bounds values : 0 OK" "$out/out" || fail "wrong results after the pause"
  echo "ok: rank 2 paused 5 s and the job finished, every check right"
  exit 0
fi
status=0
wait "$job" || status=$?
elapsed=$(($(date +%s%3N) - stopped))
kill -KILL "$pid" 2>/dev/null || true
[[ $status -ne 0 ]] || fail "the job succeeded with rank 2 stopped"
((elapsed < 20000)) || fail "the job ended ${elapsed} ms after rank 2 stopped, not within 20 s"
grep -q "rank 2" "$out/err" || fail "no error named rank 2"
echo "ok: the job ended ${elapsed} ms after rank 2 stopped, its errors naming rank 2"
