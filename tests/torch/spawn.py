#!/usr/bin/env python3
"""Starts the ranks of a torch.distributed job as torchrun would (env://).

    spawn.py --ranks N [--timeout S] [--env NAME=VALUE]... [--netns NS,NS...]
             SCRIPT [ARGS...]

Each rank is `python3 SCRIPT ARGS` with MASTER_ADDR, MASTER_PORT (a free
port), RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE set, as torchrun
sets them (torchrun itself fails under Debian's Python 3.11). With --netns,
the ranks are spread over those network namespaces (emulated hosts,
scripts/netns-rails.sh) in blocks, rank 0 on the first, whose address
MASTER_ADDR must then give. A SCRIPT not ending in .py runs as a program;
--railyard-job also sets what a railyard program started by hand needs
(RAILYARD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE, and a root bootstrap at
MASTER_ADDR with a job key), for railyard-bench beside torch. Every rank's
output is printed, prefixed with its rank. Exit status: 0 when every rank
exited 0; else 1, naming the ranks that failed; the ranks left are killed
at the timeout.
"""

import argparse
import os
import secrets
import socket
import subprocess
import sys
import threading
import time


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def relay(rank, stream, sink):
    for line in iter(stream.readline, b""):
        sink.write(f"[rank {rank}] {line.decode(errors='replace')}")
        sink.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--netns", default="", help="comma list of namespaces, one per host")
    parser.add_argument("--railyard-job", action="store_true")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()

    hosts = [h for h in options.netns.split(",") if h] or [None]
    if options.ranks % len(hosts) != 0:
        parser.error(f"--ranks {options.ranks} does not spread evenly over {len(hosts)} hosts")
    per_host = options.ranks // len(hosts)
    port = free_port()  # free here; in a namespace of ours nothing else listens
    root_port = free_port()
    job_key = secrets.token_hex(32)
    ranks = []
    for rank in range(options.ranks):
        host = hosts[rank // per_host]
        env = dict(os.environ, MASTER_ADDR=os.environ.get("MASTER_ADDR", "127.0.0.1"),
                   MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(options.ranks),
                   LOCAL_RANK=str(rank % per_host), LOCAL_WORLD_SIZE=str(per_host))
        if options.railyard_job:
            env.update(RAILYARD_RANK=str(rank), RAILYARD_SIZE=str(options.ranks),
                       RAILYARD_LOCAL_RANK=str(rank % per_host),
                       RAILYARD_LOCAL_SIZE=str(per_host), RAILYARD_BOOTSTRAP="root",
                       RAILYARD_ROOT=f"tcp://{env['MASTER_ADDR']}:{root_port}",
                       RAILYARD_JOB_KEY=job_key)
        for setting in options.env:
            name, _, value = setting.partition("=")
            env[name] = value
        command = [options.script, *options.args]
        if options.script.endswith(".py"):
            command.insert(0, options.python)
        if host is not None:
            command = ["ip", "netns", "exec", host, *command]
        process = subprocess.Popen(command, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        threading.Thread(target=relay, args=(rank, process.stdout, sys.stdout),
                         daemon=True).start()
        ranks.append(process)

    deadline = time.monotonic() + options.timeout
    while time.monotonic() < deadline and any(p.poll() is None for p in ranks):
        time.sleep(0.05)
    late = [rank for rank, p in enumerate(ranks) if p.poll() is None]
    for rank in late:
        ranks[rank].kill()
    for p in ranks:
        p.wait()
    time.sleep(0.1)  # the relays' last lines
    failed = [rank for rank, p in enumerate(ranks) if p.returncode != 0]
    if late:
        print(f"spawn.py: ranks {late} still ran after {options.timeout:.0f} s: killed")
    if failed:
        print(f"spawn.py: ranks {failed} failed (exit "
              f"{[ranks[r].returncode for r in failed]})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
