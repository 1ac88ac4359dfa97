#!/usr/bin/env python3
"""torch.distributed collectives timed in nccl-tests' columns, any backend.

Run as the ranks of a job (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE;
scripts/torch-vs-gloo.sh starts them on the emulated hosts):

    torch_bench.py --backend railyard|gloo [--operations all_reduce,all_gather,...]
        [--min 8] [--max 256M] [--factor 4] [--seconds 0.5] [--csv FILE] [--label NAME]
        [--hosts H] [--ddp [--steps 10] [--batch 1]]

Per size, every rank times a run of calls after a barrier (as many as fit in
--seconds, at least 2, after one warm-up call), checks one call's result
against its closed form (exit status 1 when one was wrong), and rank 0 prints nccl-tests' columns: size, count,
time (the ranks' average), algbw, busbw, and the slowest rank's time. The
CSV has railyard-bench's columns, so scripts/bench-table.py compares runs.
Sizes as nccl-tests counts them: all_reduce the vector; all_gather the
gathered whole; reduce_scatter the input; all_to_all one rank's input. --ddp
times instead the steps of DistributedDataParallel training an MLP of about
25 M float32 parameters on a batch of one (--batch): a step's arithmetic
then takes a fraction of its gradients' allreduce even on one core (at a
batch of 8 it took 300 ms a step here, longer than railyard's allreduce).
With --backend gloo and GLOO_SOCKET_IFNAME unset, gloo is given every
interface whose IPv4 address starts with --rail-prefix (all the rails).
"""

import argparse
import csv
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.distributed as dist

OPERATIONS = {
    # name: (railyard-bench's name, busbw factor of n ranks)
    "all_reduce": ("allreduce", lambda n: 2 * (n - 1) / n),
    "all_gather": ("allgather", lambda n: (n - 1) / n),
    "reduce_scatter": ("reduce_scatter", lambda n: (n - 1) / n),
    "all_to_all": ("alltoall", lambda n: (n - 1) / n),
}


def parse_size(text):
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    text = text.strip().lower()
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def rail_interfaces(prefix):
    out = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True,
                         check=True).stdout
    names = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[3].startswith(prefix):
            names.append(fields[1])
    return names


class Case:
    """One operation at one size: its buffers, its call, its check."""

    def __init__(self, name, size, rank, ranks):
        self.name, self.rank, self.ranks = name, rank, ranks
        elements = max(size // 4, 1)
        if name in ("all_gather", "reduce_scatter", "all_to_all"):
            elements = max(elements // ranks, 1) * ranks
        self.count = elements
        self.bytes = elements * 4
        block = elements // ranks
        if name == "all_reduce":
            self.tensor = torch.empty(elements)
        elif name == "all_gather":
            self.input = torch.empty(block)
            self.outputs = [torch.empty(block) for _ in range(ranks)]
        elif name == "reduce_scatter":
            self.inputs = [torch.empty(block) for _ in range(ranks)]
            self.output = torch.empty(block)
        else:
            self.input = torch.empty(elements)
            self.output = torch.empty(elements)

    def fill(self):
        r = float(self.rank + 1)
        if self.name == "all_reduce":
            self.tensor.fill_(r)
        elif self.name == "all_gather":
            self.input.fill_(r)
        elif self.name == "reduce_scatter":
            for j, t in enumerate(self.inputs):
                t.fill_(r * (j + 1))
        else:
            block = self.count // self.ranks
            for j in range(self.ranks):
                self.input[j * block:(j + 1) * block].fill_(r * 100 + j)

    def call(self):
        if self.name == "all_reduce":
            dist.all_reduce(self.tensor)
        elif self.name == "all_gather":
            dist.all_gather(self.outputs, self.input)
        elif self.name == "reduce_scatter":
            dist.reduce_scatter(self.output, self.inputs)
        else:
            dist.all_to_all_single(self.output, self.input)

    def wrong(self):
        """Elements that differ from the closed form after fill() and call()."""
        n = self.ranks
        total = n * (n + 1) / 2
        if self.name == "all_reduce":
            return int((self.tensor != total).sum())
        if self.name == "all_gather":
            return sum(int((t != r + 1).sum()) for r, t in enumerate(self.outputs))
        if self.name == "reduce_scatter":
            return int((self.output != total * (self.rank + 1)).sum())
        block = self.count // n
        return sum(int((self.output[r * block:(r + 1) * block] != (r + 1) * 100 + self.rank)
                       .sum()) for r in range(n))


def time_case(case, seconds):
    case.fill()
    case.call()  # warm-up, and the call the check reads
    wrong = case.wrong()
    start = time.perf_counter()
    case.call()
    one = time.perf_counter() - start
    # Every rank runs the same number of calls: rank 0's estimate decides.
    calls = torch.tensor([max(2, min(1000, int(seconds / max(one, 1e-6))))], dtype=torch.int64)
    dist.broadcast(calls, 0)
    dist.barrier()
    start = time.perf_counter()
    for _ in range(int(calls)):
        case.call()
    mean = (time.perf_counter() - start) / int(calls)
    times = torch.tensor([mean, mean, float(wrong)], dtype=torch.float64)
    gathered = [torch.empty_like(times) for _ in range(case.ranks)]
    dist.all_gather(gathered, times)
    average = statistics.mean(float(t[0]) for t in gathered)
    slowest = max(float(t[1]) for t in gathered)
    return average, slowest, int(sum(float(t[2]) for t in gathered))


def ddp_steps(steps, rank, batch):
    torch.manual_seed(0)
    width = 2048
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(6)])
    parameters = sum(p.numel() for p in model.parameters())
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    data = torch.randn(batch, width, generator=torch.Generator().manual_seed(rank))
    times = []
    for step in range(steps + 2):
        dist.barrier()
        start = time.perf_counter()
        optimizer.zero_grad()
        ddp(data).square().mean().backward()
        optimizer.step()
        if step >= 2:  # the first steps build the buckets
            times.append(time.perf_counter() - start)
    mine = torch.tensor([statistics.median(times)], dtype=torch.float64)
    gathered = [torch.empty_like(mine) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, mine)
    values = [float(t) for t in gathered]
    return parameters, statistics.mean(values), max(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", required=True)
    parser.add_argument("--operations", default="all_reduce,all_gather,reduce_scatter,all_to_all")
    parser.add_argument("--min", default="8")
    parser.add_argument("--max", default="256M")
    parser.add_argument("--factor", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--csv")
    parser.add_argument("--label")
    parser.add_argument("--hosts", type=int, default=1)
    parser.add_argument("--rail-prefix", default="198.18.")
    parser.add_argument("--ddp", action="store_true")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch", type=int, default=1)
    options = parser.parse_args()

    if options.backend == "railyard":
        import railyard.torch  # noqa: F401  registers the backend
    elif options.backend == "gloo" and "GLOO_SOCKET_IFNAME" not in os.environ:
        rails = rail_interfaces(options.rail_prefix)
        if rails:
            os.environ["GLOO_SOCKET_IFNAME"] = ",".join(rails)
    dist.init_process_group(options.backend)
    rank, ranks = dist.get_rank(), dist.get_world_size()
    label = options.label or options.backend
    rows = []
    wrong_total = 0
    if options.ddp:
        parameters, average, slowest = ddp_steps(options.steps, rank, options.batch)
        rows.append([label, "ddp_step", ranks, options.hosts, "float", "sum", -1, parameters * 4,
                     parameters, "in-place", f"{average * 1e6:.3f}", "0", "0", 0,
                     f"{slowest * 1e6:.3f}"])
        if rank == 0:
            print(f"# {label}: DDP step of an MLP of {parameters / 1e6:.1f} M parameters, batch "
                  f"{options.batch}, on {ranks} ranks: {average * 1e3:.1f} ms (slowest rank {slowest * 1e3:.1f} ms)")
    else:
        if rank == 0:
            print(f"# {label}, {ranks} ranks, float32, the ranks' average time per call")
            print("#  operation        size (B)      count   time (us)  algbw (GB/s)  "
                  "busbw (GB/s)  slowest (us)  wrong")
        for name in options.operations.split(","):
            bench_name, factor = OPERATIONS[name]
            size = parse_size(options.min)
            while size <= parse_size(options.max):
                case = Case(name, size, rank, ranks)
                average, slowest, wrong = time_case(case, options.seconds)
                wrong_total += wrong
                algbw = case.bytes / average / 1e9
                busbw = algbw * factor(ranks)
                rows.append([label, bench_name, ranks, options.hosts, "float", "sum", -1,
                             case.bytes, case.count, "out-of-place", f"{average * 1e6:.3f}",
                             f"{algbw:.6f}", f"{busbw:.6f}", wrong, f"{slowest * 1e6:.3f}"])
                if rank == 0:
                    print(f"  {name:15s} {case.bytes:12d} {case.count:10d} {average * 1e6:11.1f} "
                          f"{algbw:13.3f} {busbw:13.3f} {slowest * 1e6:13.1f} {wrong:6d}",
                          flush=True)
                del case
                size *= options.factor
    if rank == 0 and options.csv:
        with open(options.csv, "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["subject", "operation", "ranks", "hosts", "type", "redop", "root",
                             "size", "count", "placement", "time_us", "algbw_gbps",
                             "busbw_gbps", "wrong", "max_time_us"])
            writer.writerows(rows)
    dist.destroy_process_group()
    if wrong_total:
        print(f"torch_bench.py: {wrong_total} wrong elements in the checks", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
