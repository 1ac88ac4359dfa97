#!/usr/bin/env python3
"""Sub-groups of the railyard backend (new_group), used interleaved.

On 3 or more ranks: a group of the even ranks, one of the last two ranks
(torch orders a group's ranks), and one of every rank; collectives on each (closed-form
results), async work on two groups in flight at once, and point-to-point
within a group (group ranks translated to global ones by torch). Ranks
outside a group get no process group. Exit 0 when every check passed.
"""

import sys

import torch
import torch.distributed as dist

import railyard.torch  # noqa: F401  registers "railyard"


def main():
    dist.init_process_group("railyard")
    rank, size = dist.get_rank(), dist.get_world_size()
    evens = list(range(0, size, 2))
    last_two = [size - 2, size - 1]
    even_group = dist.new_group(evens)
    pair_group = dist.new_group(last_two)
    every_group = dist.new_group(list(range(size)))
    checks = 0

    for round_ in range(3):
        works = []
        t_even = torch.full((5,), float(rank + round_))
        if rank in evens:
            works.append(dist.all_reduce(t_even, group=even_group, async_op=True))
        t_pair = torch.full((3,), rank * 10 + round_, dtype=torch.int64)
        if rank in last_two:
            works.append(dist.all_reduce(t_pair, op=dist.ReduceOp.MAX, group=pair_group,
                                         async_op=True))
        t_every = torch.full((4,), 1, dtype=torch.int32)
        works.append(dist.all_reduce(t_every, group=every_group, async_op=True))
        for work in works:
            work.wait()
        if rank in evens:
            assert torch.equal(t_even, torch.full((5,), float(sum(r + round_ for r in evens)))), \
                t_even
            checks += 1
        if rank in last_two:
            assert torch.equal(t_pair, torch.full((3,), (size - 1) * 10 + round_)), t_pair
            checks += 1
        assert torch.equal(t_every, torch.full((4,), size, dtype=torch.int32)), t_every
        checks += 1

    if rank in last_two:
        # Group rank 1 of pair_group is global rank size - 1.
        assert dist.get_rank(pair_group) == last_two.index(rank)
        t = torch.arange(4, dtype=torch.float64) * (rank + 1)
        dist.broadcast(t, src=size - 1, group=pair_group)
        assert torch.equal(t, torch.arange(4, dtype=torch.float64) * size), t
        out = torch.empty(2, 6)
        dist.all_gather_into_tensor(out, torch.full((6,), float(rank)), group=pair_group) \
            if hasattr(dist, "all_gather_into_tensor") else \
            dist._all_gather_base(out, torch.full((6,), float(rank)), group=pair_group)
        assert torch.equal(out, torch.stack([torch.full((6,), float(r)) for r in last_two])), out
        # Point to point inside the group: global ranks, as torch takes them.
        peer = last_two[1 - last_two.index(rank)]
        got = torch.empty(3)
        if rank == size - 1:
            dist.send(torch.full((3,), 42.0), peer, group=pair_group)
        else:
            dist.recv(got, peer, group=pair_group)
            assert torch.equal(got, torch.full((3,), 42.0)), got
        checks += 3
    else:
        assert pair_group == dist.GroupMember.NON_GROUP_MEMBER

    dist.barrier()
    if rank == 0:
        print(f"groups: {checks} checks passed on rank 0 of {size}")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
