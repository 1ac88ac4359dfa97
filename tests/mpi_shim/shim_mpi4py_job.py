"""An MPI program in Python through mpi4py (Debian's python3-mpi4py), which
knows nothing of railyard: run by run_shim_job.sh without and with the shim.

mpi4py calls the C MPI_* functions, so the preloaded shim sees them as it
sees a C program's. Rank 0 prints one line per check: the check's name and
a digest of every rank's results (integers, or float64 sums of small
integers, exact in any order), so the two runs' outputs must be equal; a
float vector of non-integers must be bitwise equal on every rank.
"""

import hashlib
import sys

import numpy as np
from mpi4py import MPI

WORLD = MPI.COMM_WORLD
RANK = WORLD.Get_rank()
SIZE = WORLD.Get_size()
TYPES = (np.int32, np.int64, np.float32, np.float64, np.uint8)
# Below, at and above the shim's 64 KiB default, and a count no power of 2.
COUNTS = (0, 1, 7, 1000, 16384 + 3, 300000)


def values(count, dtype, rank):
    """Rank `rank`'s vector: small integers, exact in every type's sums."""
    return ((np.arange(count) % 31) + rank).astype(dtype)


def digest(comm, array):
    """A digest of every rank's `array`, the same on every rank."""
    mine = hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]
    return ",".join(comm.allgather(mine))


def report(name, array):
    """Rank 0 of the world prints every rank's digest (all ranks call this
    together, whichever communicator they ran the collective on)."""
    text = digest(WORLD, array)
    if RANK == 0:
        print(f"{name} {text}", flush=True)


def collectives(comm, label):
    rank, size = comm.Get_rank(), comm.Get_size()
    for count in COUNTS:
        for dtype in TYPES:
            name = f"{label} {np.dtype(dtype).name} x{count}"
            mine = values(count, dtype, rank)
            out = np.empty_like(mine)
            comm.Allreduce(mine, out, op=MPI.SUM)
            report(f"{name} allreduce sum", out)
            inplace = mine.copy()
            comm.Allreduce(MPI.IN_PLACE, inplace, op=MPI.MAX)
            report(f"{name} allreduce max in place", inplace)
            root = (count + 1) % size
            reduced = np.zeros_like(mine)
            comm.Reduce(mine, reduced if rank == root else None, op=MPI.MIN, root=root)
            report(f"{name} reduce min", reduced)
            sent = mine.copy() if rank == root else np.zeros_like(mine)
            comm.Bcast(sent, root=root)
            report(f"{name} bcast", sent)
            gathered = np.empty(count * size, dtype=dtype)
            comm.Allgather(mine, gathered)
            report(f"{name} allgather", gathered)
            block = count // size
            scattered = np.empty(block, dtype=dtype)
            comm.Reduce_scatter_block(values(block * size, dtype, rank), scattered, op=MPI.SUM)
            report(f"{name} reduce_scatter_block", scattered)
            exchanged = np.empty(block * size, dtype=dtype)
            comm.Alltoall(values(block * size, dtype, rank * 3), exchanged)
            report(f"{name} alltoall", exchanged)
            nonblocking = np.empty_like(mine)
            bcast = mine.copy() if rank == 0 else np.zeros_like(mine)
            requests = [comm.Iallreduce(mine, nonblocking, op=MPI.SUM), comm.Ibcast(bcast, root=0),
                        comm.Ibarrier()]
            MPI.Request.Waitall(requests)
            report(f"{name} iallreduce", nonblocking)
            report(f"{name} ibcast", bcast)
    comm.Barrier()


def floats_agree(comm):
    """A sum of non-integers: not order-free, so only bitwise agreement."""
    rng = np.random.default_rng(comm.Get_rank() + 1)
    mine = rng.standard_normal(100003)
    out = np.empty_like(mine)
    comm.Allreduce(mine, out, op=MPI.SUM)
    hashes = set(digest(comm, out).split(","))
    if RANK == 0:
        print(f"float64 sum bitwise equal on every rank: {'yes' if len(hashes) == 1 else 'no'}",
              flush=True)


def main():
    collectives(WORLD, "world")
    duplicate = WORLD.Dup()
    collectives(duplicate, "dup")
    floats_agree(duplicate)
    duplicate.Free()
    # Reversed order within each half: a sub-communicator of its own ranks.
    half = WORLD.Split(RANK % 2, SIZE - RANK)
    collectives(half, f"split{RANK % 2}")
    half.Free()
    # The object (pickle) interface: mpi4py's own algorithms over MPI calls.
    total = WORLD.allreduce(RANK, op=MPI.SUM)
    if RANK == 0:
        print(f"object allreduce {total}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
