#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests of jobs started by
# srun as on a real cluster.
#
#   slurm-local.sh [--cpus N] [--timeout SECONDS] [--skip-unless-root]
#                  -- COMMAND [ARGS...]
#
# Starts slurmctld and slurmd (Debian's slurm-wlm) with their state, spool,
# logs and pid files in a fresh temporary directory: AuthType=auth/none and
# CredType=cred/none (no munge), ProctrackType=proctrack/pgid,
# TaskPlugin=task/none, ports of their own, and one node named after
# `hostname -s` at 127.0.0.1 declaring --cpus CPUs (default 8, more than
# this machine may have, with SlurmdParameters=config_overrides), so that
# 3 or 4 tasks fit on 2 cores. Waits for the node to be idle, then runs
# COMMAND under `timeout` with SLURM_CONF naming the configuration (srun,
# sbatch, sinfo and scancel read it), and RAILYARD_SLURM_DIR the directory.
# Both daemons are stopped by pid on every exit, and the directory removed.
#
# Exit status: COMMAND's, 124 on timeout, 77 when --skip-unless-root is
# given and this is not root or Slurm is not installed (CTest's
# SKIP_RETURN_CODE), 2 on bad usage, 1 when the cluster did not come up
# (its logs are printed).
set -euo pipefail

cpus=8
time_limit=300
skip_unless_root=0

usage() {
  sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

fail_usage() {
  echo "slurm-local.sh: $1" >&2
  exit 2
}

while (($#)); do
  case "$1" in
    --cpus)
      [[ ${2:-} =~ ^[1-9][0-9]{0,3}$ ]] || fail_usage "--cpus '${2:-}': expected a count from 1 to 9999"
      cpus=$2
      shift 2
      ;;
    --timeout)
      [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || fail_usage "--timeout '${2:-}': expected whole seconds"
      time_limit=$2
      shift 2
      ;;
    --skip-unless-root) skip_unless_root=1; shift ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) fail_usage "unknown argument '$1' (expected --cpus, --timeout, --skip-unless-root, then -- COMMAND)" ;;
  esac
done
(($#)) || fail_usage "no COMMAND after --"

skip_or_fail() {
  if ((skip_unless_root)); then
    echo "slurm-local.sh: skipped: $1" >&2
    exit 77
  fi
  echo "slurm-local.sh: $1" >&2
  exit 1
}
((EUID == 0)) || skip_or_fail "the daemons run as root here (SlurmUser=root); not root"
for program in slurmctld slurmd srun sinfo; do
  command -v "$program" >/dev/null ||
    skip_or_fail "$program not found: install Debian's slurm-wlm (scripts/install-deps.sh)"
done

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

dir=$(mktemp -d /tmp/railyard-slurm.XXXXXX)
node=$(hostname -s)
ctld_pid=""
slurmd_pid=""
cleanup() {
  local status=$?
  [[ -n $ctld_pid ]] && SLURM_CONF="$dir/slurm.conf" timeout 5 scancel --quiet --user=root 2>/dev/null || true
  for pid in $slurmd_pid $ctld_pid; do
    kill "$pid" 2>/dev/null || true
  done
  # Each daemon gets 10 s to stop, then is killed.
  for pid in $slurmd_pid $ctld_pid; do
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<EOF
ClusterName=railyard
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
export SLURM_CONF="$dir/slurm.conf" RAILYARD_SLURM_DIR="$dir"

# The daemons without what the caller preloads (a sanitizer's runtime is
# for the tasks).
env -u LD_PRELOAD slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
ctld_pid=$!
env -u LD_PRELOAD slurmd -D -f "$SLURM_CONF" -N "$node" >"$dir/slurmd.out" 2>&1 &
slurmd_pid=$!

# Up within 30 s: the node idle.
up=0
for _ in $(seq 150); do
  if [[ $(timeout 5 sinfo -h -n "$node" -o %T 2>/dev/null) == idle* ]]; then
    up=1
    break
  fi
  kill -0 "$ctld_pid" 2>/dev/null && kill -0 "$slurmd_pid" 2>/dev/null || break
  sleep 0.2
done
if ((!up)); then
  echo "slurm-local.sh: the one-node cluster did not come up within 30 s; its logs:" >&2
  tail -n 20 "$dir"/slurmctld.log "$dir"/slurmd.log "$dir"/*.out >&2 2>/dev/null || true
  exit 1
fi

status=0
timeout --kill-after=10 "$time_limit" "$@" || status=$?
exit "$status"
