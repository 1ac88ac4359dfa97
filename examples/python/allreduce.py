#!/usr/bin/env python3
"""railyard's C API from Python: the railyard package's ctypes binding.

The job's world from the environment (run it under railyard-run, mpirun or
srun), an allreduce of float64 and int64 numpy arrays, in place and not,
checked against the sums every rank can work out; rank 0 prints each size.
Exit status 0 when every result is right.

    PYTHONPATH=build/release/python railyard-run -n 4 python3 allreduce.py

(The PYTHONPATH is for the build tree; `cmake --install` puts the package
where python3 finds it.)
"""
import sys

import numpy as np

from railyard import capi


def main():
    with capi.Communicator.world() as comm:
        wrong = 0
        for count in (1, 1000, 1 << 20):
            # Small integers in floats: the sums are exact in any order.
            mine = (comm.rank + 1) * (np.arange(count) % 7).astype(np.float64)
            sums = np.empty_like(mine)
            comm.allreduce(mine, sums, capi.SUM)
            comm.allreduce(None, mine, capi.SUM)
            expected = comm.size * (comm.size + 1) / 2 * (np.arange(count) % 7)
            if not (np.array_equal(sums, expected) and np.array_equal(mine, expected)):
                print(f"rank {comm.rank}: the sum of {count} float64 is wrong", file=sys.stderr)
                wrong = 1
            elif comm.rank == 0:
                print(f"allreduce of {count:8d} float64 over {comm.size} ranks: right")
        largest = np.array([comm.rank * 10 + 1], dtype=np.int64)
        comm.allreduce(None, largest, capi.MAX)
        if largest[0] != (comm.size - 1) * 10 + 1:
            print(f"rank {comm.rank}: the max is {largest[0]}", file=sys.stderr)
            wrong = 1
        verdict = np.array([wrong], dtype=np.int64)
        comm.allreduce(None, verdict, capi.MAX)
        return int(verdict[0])


if __name__ == "__main__":
    sys.exit(main())
