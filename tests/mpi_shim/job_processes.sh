# Sourced by the shim's job scripts. Each job's ranks carry a tag in their
# environment (mpirun -x JOB_TAG=...), so a check finds its own processes
# and not those of another test running the same program at the same time.
JOB_TAG="railyard-shim-job-$$-$RANDOM"

# The pids of this job's processes that still run, after a moment for the
# launcher's last signals to land. Zombies are dead (their parent, gone with
# mpirun, cannot reap them) and not listed.
live_processes() {
  sleep 0.2
  local environ pid state
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    if { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -x "JOB_TAG=$JOB_TAG" >/dev/null; then
      state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
      [[ -n $state && $state != Z ]] && echo "$pid $state"
    fi
  done
  return 0
}
