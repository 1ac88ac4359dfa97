#!/usr/bin/env python3
"""DistributedDataParallel over the railyard backend, against gloo.

The same small model, trained for a few steps on each rank's own data, once
with DDP over the railyard group and once over a gloo group of the same
ranks. Checks: the parameters are the same on every rank after training;
they equal gloo's run's (float64: to the last bit on 2 ranks, where a sum
of two has one order; within 1e-12 otherwise); and training moved them.
Also no_sync() steps (gradient accumulation) and a communication hook
(DDP's reducer futures). Exit 0 when all hold.
"""

import sys

import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel

import railyard.torch  # noqa: F401  registers "railyard"

STEPS = 6


def make_model():
    torch.manual_seed(1234)
    return torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64), torch.nn.Tanh(),
        torch.nn.Linear(64, 4)).double()


def train(group, rank, hook=False):
    model = DistributedDataParallel(make_model(), process_group=group, bucket_cap_mb=0.01)
    if hook:
        model.register_comm_hook(group, default_hooks.allreduce_hook)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    data = torch.Generator().manual_seed(100 + rank)
    for step in range(STEPS):
        inputs = torch.randn(16, 32, generator=data, dtype=torch.float64)
        targets = torch.randn(16, 4, generator=data, dtype=torch.float64)
        optimizer.zero_grad()
        if step % 3 == 1:
            # Accumulate one micro-batch without communication, then sync.
            with model.no_sync():
                torch.nn.functional.mse_loss(model(inputs[:8]), targets[:8]).backward()
            torch.nn.functional.mse_loss(model(inputs[8:]), targets[8:]).backward()
        else:
            torch.nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
    return torch.cat([p.detach().reshape(-1) for p in model.module.parameters()])


def main():
    dist.init_process_group("railyard")
    rank, size = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(backend="gloo")
    initial = torch.cat([p.detach().reshape(-1) for p in make_model().parameters()])

    ours = train(None, rank)
    ours_hooked = train(None, rank, hook=True)
    theirs = train(gloo, rank)

    # The same on every rank (gathered over gloo, which is not under test).
    everyone = [torch.empty_like(ours) for _ in range(size)]
    dist.all_gather(everyone, ours, group=gloo)
    for r, other in enumerate(everyone):
        if not torch.equal(other, ours):
            raise AssertionError(f"rank {rank}: parameters differ from rank {r}'s: "
                                 f"{(other - ours).abs().max().item()}")
    if torch.equal(ours, initial):
        raise AssertionError("training did not change the parameters")
    exact = size == 2
    for name, got in (("DDP", ours), ("DDP with allreduce_hook", ours_hooked)):
        difference = (got - theirs).abs().max().item()
        if (exact and not torch.equal(got, theirs)) or difference > 1e-12:
            raise AssertionError(f"rank {rank}: {name} over railyard differs from gloo's run by "
                                 f"{difference}")
    if rank == 0:
        print(f"ddp: {STEPS} steps on {size} ranks, parameters "
              f"{'identical' if exact else 'within 1e-12'} to gloo's on every rank")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
