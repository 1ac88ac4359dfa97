#!/usr/bin/env python3
"""Every operation of the railyard backend against closed-form results.

Run as the ranks of a job (spawn.py): each rank contributes values that
depend on its rank, so every result is known in closed form; each check
compares exactly. Every element type the operation takes, contiguous and
non-contiguous tensors, blocking and async_op=True with futures. Exit 0
when every check passed; rank 0 prints the count.
"""

import sys
import warnings

import torch
import torch.distributed as dist

import railyard.torch  # noqa: F401  registers "railyard"

FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTEGERS = [torch.int8, torch.uint8, torch.int32, torch.int64]
ALL = FLOATS + INTEGERS + [torch.bool]
warnings.filterwarnings("ignore", message=".*all_reduce_coalesced will be deprecated")
N = 13  # elements: odd, so no block divides evenly by accident

checks = 0


def expect(what, got, want):
    global checks
    checks += 1
    if got.dtype != want.dtype or got.shape != want.shape or not torch.equal(got, want):
        raise AssertionError(f"rank {RANK}: {what}: got {got.tolist()}, want {want.tolist()}")


def index(n=N):
    return torch.arange(n, dtype=torch.int64)


def values(rank, dtype, n=N):
    """Rank `rank`'s tensor: (rank + 1) * (i % 5 + 1); bool: i % (rank + 2) == 0."""
    if dtype == torch.bool:
        return (index(n) % (rank + 2)) == 0
    return ((rank + 1) * (index(n) % 5 + 1)).to(dtype)


def all_reduce_checks():
    size = WORLD
    for dtype in ALL:
        i = index()
        # SUM (bool: or), non-contiguous too: a column of a matrix.
        t = values(RANK, dtype)
        dist.all_reduce(t)
        if dtype == torch.bool:
            want = torch.zeros(N, dtype=torch.bool)
            for r in range(size):
                want |= values(r, dtype)
        else:
            want = (size * (size + 1) // 2 * (i % 5 + 1)).to(dtype)
        expect(f"all_reduce SUM {dtype}", t, want)
        matrix = torch.zeros(N, 3, dtype=dtype)
        matrix[:, 1] = values(RANK, dtype)
        column = matrix[:, 1]
        assert not column.is_contiguous()
        dist.all_reduce(column)
        expect(f"all_reduce SUM {dtype} non-contiguous", matrix[:, 1], want)
        expect(f"all_reduce SUM {dtype} leaves the other columns", matrix[:, 0],
               torch.zeros(N, dtype=dtype))
        # MIN, MAX.
        for op, rank in ((dist.ReduceOp.MIN, 0), (dist.ReduceOp.MAX, size - 1)):
            t = values(RANK, dtype)
            dist.all_reduce(t, op=op)
            if dtype == torch.bool:
                want = values(0, dtype)
                for r in range(1, size):
                    want = (want & values(r, dtype)) if op == dist.ReduceOp.MIN else \
                        (want | values(r, dtype))
            else:
                want = values(rank, dtype)
            expect(f"all_reduce {op} {dtype}", t, want)
        # PRODUCT of (rank % 2 + 1) * (i % 2 + 1): small enough for int8.
        if dtype == torch.bool:
            t = values(RANK, dtype)
            dist.all_reduce(t, op=dist.ReduceOp.PRODUCT)
            want = values(0, dtype)
            for r in range(1, size):
                want &= values(r, dtype)
        else:
            t = ((RANK % 2 + 1) * (i % 2 + 1)).to(dtype)
            dist.all_reduce(t, op=dist.ReduceOp.PRODUCT)
            twos = sum(1 for r in range(size) if r % 2 == 1)
            want = (2 ** twos * (i % 2 + 1) ** size).to(dtype)
        expect(f"all_reduce PRODUCT {dtype}", t, want)
        # Bitwise: rank r sets bit r.
        if dtype not in FLOATS:
            for op in (dist.ReduceOp.BAND, dist.ReduceOp.BOR, dist.ReduceOp.BXOR):
                if dtype == torch.bool:
                    t = torch.full((N,), RANK == 0, dtype=dtype)
                    want = torch.full((N,), op != dist.ReduceOp.BAND or size == 1, dtype=dtype)
                else:
                    t = torch.full((N,), 1 << RANK, dtype=dtype)
                    everyone = (1 << size) - 1
                    want = torch.full((N,), everyone if op != dist.ReduceOp.BAND or size == 1
                                      else 0, dtype=dtype)
                dist.all_reduce(t, op=op)
                expect(f"all_reduce {op} {dtype}", t, want)
        # AVG where this torch has it: the sum over the size, integers truncated.
        if hasattr(dist.ReduceOp, "AVG") and dtype != torch.bool:
            t = values(RANK, dtype)
            dist.all_reduce(t, op=dist.ReduceOp.AVG)
            total = size * (size + 1) // 2 * (i % 5 + 1)
            want = (total.double() / size).to(dtype) if dtype in FLOATS else \
                torch.div(total, size, rounding_mode="trunc").to(dtype)
            expect(f"all_reduce AVG {dtype}", t, want)


def coalesced_checks():
    s = WORLD * (WORLD + 1) // 2
    for dtype in (torch.float32, torch.int64):
        tensors = [values(RANK, dtype, n) for n in (5, 7, 3)]
        tensors.append(torch.zeros(4, 2, dtype=dtype)[:, 0])  # non-contiguous
        tensors[-1].copy_(values(RANK, dtype, 4))
        dist.all_reduce_coalesced(tensors)
        for t, n in zip(tensors, (5, 7, 3, 4)):
            expect(f"all_reduce_coalesced {dtype}[{n}]", t, (s * (index(n) % 5 + 1)).to(dtype))


def copy_checks():
    size = WORLD
    for dtype in ALL:
        for root in range(size):
            t = values(RANK, dtype)
            dist.broadcast(t, src=root)
            expect(f"broadcast {dtype} from {root}", t, values(root, dtype))
        # all_gather into a list, and into one tensor.
        parts = [torch.empty(N, dtype=dtype) for _ in range(size)]
        dist.all_gather(parts, values(RANK, dtype))
        for r in range(size):
            expect(f"all_gather {dtype} part {r}", parts[r], values(r, dtype))
        gather_into = getattr(dist, "all_gather_into_tensor", None) or dist._all_gather_base
        flat = torch.empty(size * N, dtype=dtype)
        gather_into(flat, values(RANK, dtype))
        expect(f"all_gather_into_tensor {dtype}", flat,
               torch.cat([values(r, dtype) for r in range(size)]))
        # gather and scatter to and from the last rank.
        root = size - 1
        parts = [torch.empty(N, dtype=dtype) for _ in range(size)] if RANK == root else None
        dist.gather(values(RANK, dtype), parts, dst=root)
        if RANK == root:
            for r in range(size):
                expect(f"gather {dtype} part {r}", parts[r], values(r, dtype))
        mine = torch.empty(N, dtype=dtype)
        dist.scatter(mine, [values(r, dtype) for r in range(size)] if RANK == root else None,
                     src=root)
        expect(f"scatter {dtype}", mine, values(RANK, dtype))
        # reduce (SUM; bool: or) to rank 0.
        if dtype != torch.bool:
            t = values(RANK, dtype)
            dist.reduce(t, dst=0)
            if RANK == 0:
                expect(f"reduce {dtype}", t, (size * (size + 1) // 2 * (index() % 5 + 1)).to(dtype))
            else:
                expect(f"reduce {dtype} leaves non-roots", t, values(RANK, dtype))


def reduce_scatter_checks():
    size = WORLD
    for dtype in FLOATS + INTEGERS:
        # Rank r's block j: (r + 1) * (j + 1) * (i % 5 + 1); rank j gets the sum over r.
        blocks = [((RANK + 1) * (j + 1) * (index() % 5 + 1)).to(dtype) for j in range(size)]
        want = (size * (size + 1) // 2 * (RANK + 1) * (index() % 5 + 1)).to(dtype)
        if dtype == torch.int8 and size * (size + 1) // 2 * size * 5 > 127:
            continue
        if dtype == torch.uint8 and size * (size + 1) // 2 * size * 5 > 255:
            continue
        out = torch.empty(N, dtype=dtype)
        dist.reduce_scatter(out, blocks)
        expect(f"reduce_scatter {dtype}", out, want)
        scatter_from = getattr(dist, "reduce_scatter_tensor", None) or dist._reduce_scatter_base
        out = torch.empty(N, dtype=dtype)
        scatter_from(out, torch.cat(blocks))
        expect(f"reduce_scatter_tensor {dtype}", out, want)


def all_to_all_checks():
    size = WORLD
    for dtype in (torch.float32, torch.int64, torch.bfloat16, torch.bool):
        # Equal splits: rank r sends block j = values(r * size + j).
        send = torch.cat([values(RANK * size + j, dtype, 4) for j in range(size)])
        out = torch.empty_like(send)
        dist.all_to_all_single(out, send)
        expect(f"all_to_all_single {dtype}", out,
               torch.cat([values(r * size + RANK, dtype, 4) for r in range(size)]))
        # Uneven: rank r sends r + j + 1 rows of 2 to rank j.
        rows = [RANK + j + 1 for j in range(size)]
        send = torch.cat([values(RANK * size + j, dtype, 2 * rows[j]).view(-1, 2)
                          for j in range(size)])
        got_rows = [r + RANK + 1 for r in range(size)]
        out = torch.empty(sum(got_rows), 2, dtype=dtype)
        dist.all_to_all_single(out, send, output_split_sizes=got_rows, input_split_sizes=rows)
        expect(f"all_to_all_single uneven {dtype}", out,
               torch.cat([values(r * size + RANK, dtype, 2 * got_rows[r]).view(-1, 2)
                          for r in range(size)]))
        # Lists of tensors of different sizes.
        outs = [torch.empty(r + 1, dtype=dtype) for r in range(size)]
        dist.all_to_all(outs, [values(RANK * size + j, dtype, RANK + 1) for j in range(size)])
        for r in range(size):
            expect(f"all_to_all {dtype} from {r}", outs[r], values(r * size + RANK, dtype, r + 1))


def message_checks():
    size = WORLD
    right, left = (RANK + 1) % size, (RANK - 1) % size
    for dtype in (torch.float64, torch.int8, torch.bool):
        # A ring: isend right, irecv left; tags apart.
        out = torch.empty(N, dtype=dtype)
        sends = [dist.isend(values(RANK, dtype), right, tag=7)]
        dist.recv(out, left, tag=7)
        for work in sends:
            work.wait()
        expect(f"isend/recv {dtype}", out, values(left, dtype))
        receive = dist.irecv(out, src=left, tag=3)
        dist.send(values(RANK + 10, dtype), right, tag=3)
        receive.wait()
        expect(f"send/irecv {dtype}", out, values(left + 10, dtype))
    # From any rank: rank 0 takes one message from each other rank.
    if RANK == 0:
        seen = set()
        for _ in range(size - 1):
            t = torch.empty(N, dtype=torch.int32)
            source = dist.recv(t, tag=11)
            expect(f"recv from any rank (sender {source})", t, values(source, torch.int32))
            seen.add(source)
        assert seen == set(range(1, size)), seen
    else:
        dist.send(values(RANK, torch.int32), 0, tag=11)


def async_checks():
    size = WORLD
    works = []
    tensors = []
    for k in range(6):
        t = values(RANK + k, torch.float32)
        tensors.append(t)
        works.append(dist.all_reduce(t, async_op=True))
    futures = [w.get_future().then(lambda f: f.value()[0] * 2) for w in works]
    for k, (w, f) in enumerate(zip(works, futures)):
        w.wait()
        assert w.is_completed()
        s = sum(r + k + 1 for r in range(size))
        want = (s * (index() % 5 + 1)).to(torch.float32)
        expect(f"async all_reduce {k}", tensors[k], want)
        expect(f"future of all_reduce {k}", f.wait(), want * 2)
    work = dist.barrier(async_op=True)
    work.wait()


def main():
    global RANK, WORLD
    dist.init_process_group("railyard")
    RANK, WORLD = dist.get_rank(), dist.get_world_size()
    assert dist.get_backend() == "railyard", dist.get_backend()
    for section in (all_reduce_checks, coalesced_checks, copy_checks, reduce_scatter_checks,
                    all_to_all_checks, message_checks, async_checks):
        section()
        dist.barrier()
    if RANK == 0:
        print(f"ops: {checks} checks passed on {WORLD} ranks")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
