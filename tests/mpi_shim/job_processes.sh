# Sourced by the shim's job scripts. live_processes PROGRAM: the pids and
# states of PROGRAM's processes that still run, after a moment for the
# launcher's last signals to land. Zombies are dead (their parent, gone
# with mpirun, cannot reap them) and not listed.
live_processes() {
  sleep 0.2
  ps -C "$(basename "$1" | cut -c1-15)" -o pid=,stat= | awk '$2 !~ /^Z/' || true
}
