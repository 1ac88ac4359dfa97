#!/usr/bin/env python3
"""Splits a ping-pong's half round trip into three phases from kernel
tracepoints alone (no system-call tracing, which slows every call):

  1. the sender's packet at its device queue (net:net_dev_queue)
     -> the receiver's socket has it (sock:sk_data_ready, run in the
     sender's context on veth);
  2. the socket has it -> the receiver has read it (sock:sock_recv_length,
     length > 0): how soon the receiver's wait finds it, and the read;
  3. read -> the receiver's reply at its device queue: the receiver's own
     work between the two, and the send's path down the stack.

Record and split (docs/benchmarks.md, "Latency"):

  perf record -a -e net:net_dev_queue,sock:sk_data_ready,sock:sock_recv_length -o t.data -- CMD
  perf script --ns -i t.data -F comm,pid,tid,cpu,time,event,trace > t.txt
  scripts/latency-phases.py t.txt [--pair PID,PID ...] [--device-prefix ry]

Without --pair, the processes that read the most messages are paired in
pid order (two ranks started one after the other, as railyard-mrail-bench
and mpirun start them). Only data packets count: longer than a bare TCP
acknowledgement (66 bytes at the device), on devices whose name starts with
the prefix (the emulated hosts' rails).
"""
import argparse
import re
import statistics
import sys
from collections import defaultdict

EVENT = re.compile(r"\s*(\S+)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+(\S+):\s*(.*)")
BARE_ACK_BYTES = 66
BUSY_READS = 1000


def read_events(path):
    events = []
    with open(path) as handle:
        for line in handle:
            match = EVENT.match(line)
            if match:
                comm, pid, _tid, time, name, rest = match.groups()
                events.append((float(time), int(pid), comm, name, rest))
    return events


def is_data_packet(rest, prefix):
    device = re.search(r"dev=(\S+)", rest)
    length = re.search(r"len=(\d+)", rest)
    return (device is not None and device.group(1).startswith(prefix) and length is not None
            and int(length.group(1)) > BARE_ACK_BYTES)


def read_length(rest):
    match = re.search(r"length = (-?\d+)", rest)
    return int(match.group(1)) if match else 0


def phases(events, receiver, sender, prefix):
    """The three phases (us) of every message `sender` sent `receiver`."""
    queued = ready = read = None
    stack, found, reply = [], [], []
    for time, pid, _comm, name, rest in events:
        if pid == sender and name == "net:net_dev_queue" and is_data_packet(rest, prefix):
            queued = time
        elif pid == sender and name == "sock:sk_data_ready" and "protocol=6" in rest:
            if queued is not None:
                stack.append((time - queued) * 1e6)
                queued = None
            ready = time
        elif pid == receiver and name == "sock:sock_recv_length" and read_length(rest) > 0:
            if ready is not None:
                found.append((time - ready) * 1e6)
                ready = None
                read = time
        elif pid == receiver and name == "net:net_dev_queue" and is_data_packet(rest, prefix):
            if read is not None:
                reply.append((time - read) * 1e6)
                read = None
    return stack, found, reply


def spread(values):
    if not values:
        return "      -     -     -"
    values = sorted(values)
    n = len(values)
    return f"{values[n // 10]:6.2f} {statistics.median(values):5.2f} {values[9 * n // 10]:5.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", help="perf script --ns -F comm,pid,tid,cpu,time,event,trace")
    parser.add_argument("--pair", action="append", default=[], help="PID,PID of two ranks")
    parser.add_argument("--device-prefix", default="ry",
                        help="the rails' device names start with this (default ry)")
    args = parser.parse_args()
    try:
        events = read_events(args.trace)
    except OSError as error:
        sys.exit(f"latency-phases.py: cannot read {args.trace}: {error}")
    names = {}
    reads = defaultdict(int)
    for _time, pid, comm, name, rest in events:
        names[pid] = comm
        if name == "sock:sock_recv_length" and read_length(rest) > 0:
            reads[pid] += 1
    pairs = []
    for text in args.pair:
        try:
            first, second = (int(pid) for pid in text.split(","))
        except ValueError:
            sys.exit(f"latency-phases.py: --pair {text}: expected two process ids, PID,PID")
        pairs.append((first, second))
    if not pairs:
        busy = sorted(pid for pid, count in reads.items() if count >= BUSY_READS)
        pairs = list(zip(busy[0::2], busy[1::2]))
    if not pairs:
        sys.exit(f"latency-phases.py: no two processes in {args.trace} read {BUSY_READS} or more "
                 "messages (sock:sock_recv_length); was the trace recorded with -a and the "
                 "three tracepoints?")
    print("# phase (us): p10 median p90 | 1: sender's device queue -> receiver's socket has it"
          " | 2: -> receiver read it | 3: -> receiver's reply at its device queue")
    for first, second in pairs:
        for receiver, sender in ((first, second), (second, first)):
            stack, found, reply = phases(events, receiver, sender, args.device_prefix)
            print(f"{names.get(receiver, '?'):<16} {receiver:>7} from {sender:>7}: "
                  f"1 {spread(stack)} | 2 {spread(found)} | 3 {spread(reply)} | "
                  f"{len(found)} messages")


if __name__ == "__main__":
    main()
