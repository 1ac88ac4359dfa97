#!/usr/bin/env python3
"""The backend through each of torch's init methods, under each launcher.

    init_methods.py --init env|tcp|file [--launcher NAME]

Run as the ranks of a job. env:// takes what the launcher set (spawn.py
sets torchrun's variables; under mpirun or railyard-run, importing
railyard.torch sets them from the launcher's). tcp:// and file:// get the
rank and size as arguments, with MASTER_ADDR and MASTER_PORT taken out of
the environment so that nothing else can carry the rendezvous. With
--launcher, the launcher railyard.torch names must be NAME. Each rank then
checks an all_reduce on the world, a broadcast, and an all_reduce in a
sub-group. Exit 0 when every check held.
"""

import argparse
import os
import sys

import torch
import torch.distributed as dist

import railyard.torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", choices=["env", "tcp", "file"], required=True)
    parser.add_argument("--launcher")
    options = parser.parse_args()

    if options.launcher is not None:
        named = railyard.torch.launcher()
        assert named == options.launcher, f"launcher: got {named!r}, want {options.launcher!r}"
    rank, size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    address, port = os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"]
    path = None
    if options.init == "env":
        dist.init_process_group("railyard")
    else:
        del os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"]
        if options.init == "tcp":
            method = f"tcp://{address}:{port}"
        else:
            # The same fresh path on every rank of this job, none other's.
            path = f"/tmp/railyard-torch-init-{port}"
            method = f"file://{path}"
        dist.init_process_group("railyard", init_method=method, rank=rank, world_size=size)
    assert dist.get_backend() == "railyard", dist.get_backend()
    assert (dist.get_rank(), dist.get_world_size()) == (rank, size)

    t = torch.full((1000,), float(rank + 1), dtype=torch.float64)
    dist.all_reduce(t)
    assert torch.equal(t, torch.full((1000,), size * (size + 1) / 2, dtype=torch.float64)), t[:4]
    b = torch.arange(17, dtype=torch.int32) * (rank + 1)
    dist.broadcast(b, src=size - 1)
    assert torch.equal(b, torch.arange(17, dtype=torch.int32) * size), b
    members = list(range(1, size))  # a sub-group without rank 0
    group = dist.new_group(members)
    if rank in members:
        s = torch.tensor([rank], dtype=torch.int64)
        dist.all_reduce(s, group=group)
        assert s.item() == sum(members), (s.item(), members)
    dist.barrier()
    dist.destroy_process_group()
    if path is not None and rank == 0 and os.path.exists(path):
        os.unlink(path)
    if rank == 0:
        print(f"init_methods: {options.init}:// on {size} ranks "
              f"(launcher {railyard.torch.launcher()}): every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
