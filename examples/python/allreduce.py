#!/usr/bin/env python3
"""railyard's C API from Python, through ctypes and numpy.

The job's world from the environment (run it under railyard-run, mpirun or
srun), an allreduce of float64 and int64 numpy arrays, in place and not,
checked against the sums every rank can work out; rank 0 prints each size.
Exit status 0 when every result is right.

    railyard-run -n 4 python3 allreduce.py

RAILYARD_LIBRARY names librailyard.so when it is not where the dynamic
loader looks (ctypes.util.find_library).
"""
import ctypes
import ctypes.util
import os
import sys

import numpy as np

# railyard.h's values.
SUCCESS = 0
INT64, FLOAT64 = 3, 11
SUM, MAX = 0, 3


def load_library():
    path = os.environ.get("RAILYARD_LIBRARY") or ctypes.util.find_library("railyard")
    if not path:
        sys.exit("allreduce.py: librailyard.so not found: set RAILYARD_LIBRARY to its path")
    lib = ctypes.CDLL(path)
    lib.railyard_strerror.restype = ctypes.c_char_p
    lib.railyard_strerror.argtypes = [ctypes.c_int]
    lib.railyard_last_error.restype = ctypes.c_char_p
    lib.railyard_in_place.restype = ctypes.c_void_p
    lib.railyard_comm_init.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.railyard_comm_rank.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    lib.railyard_comm_size.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    lib.railyard_comm_destroy.argtypes = [ctypes.c_void_p]
    lib.railyard_allreduce.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                       ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    return lib


class Railyard:
    """The few calls this example needs, raising on failure."""

    def __init__(self):
        self.lib = load_library()
        self.comm = ctypes.c_void_p()
        self.check(self.lib.railyard_comm_init(ctypes.byref(self.comm)), "railyard_comm_init")
        rank, size = ctypes.c_int(), ctypes.c_int()
        self.check(self.lib.railyard_comm_rank(self.comm, ctypes.byref(rank)), "railyard_comm_rank")
        self.check(self.lib.railyard_comm_size(self.comm, ctypes.byref(size)), "railyard_comm_size")
        self.rank, self.size = rank.value, size.value

    def check(self, result, what):
        if result != SUCCESS:
            raise RuntimeError(f"{what}: {self.lib.railyard_strerror(result).decode()} "
                               f"({self.lib.railyard_last_error().decode()})")

    def allreduce(self, send, recv, op):
        """recv = op over every rank's send; send None: in place at recv."""
        kinds = {np.dtype(np.float64): FLOAT64, np.dtype(np.int64): INT64}
        if recv.dtype not in kinds or not recv.flags["C_CONTIGUOUS"]:
            raise TypeError(f"allreduce takes contiguous float64 or int64 arrays, not {recv.dtype}")
        source = self.lib.railyard_in_place() if send is None else send.ctypes.data
        self.check(self.lib.railyard_allreduce(source, recv.ctypes.data, recv.size,
                                               kinds[recv.dtype], op, self.comm),
                   "railyard_allreduce")

    def close(self):
        self.check(self.lib.railyard_comm_destroy(self.comm), "railyard_comm_destroy")


def main():
    ry = Railyard()
    wrong = 0
    for count in (1, 1000, 1 << 20):
        # Small integers in floats: the sums are exact in any order.
        mine = (ry.rank + 1) * (np.arange(count) % 7).astype(np.float64)
        sums = np.empty_like(mine)
        ry.allreduce(mine, sums, SUM)
        ry.allreduce(None, mine, SUM)
        expected = ry.size * (ry.size + 1) / 2 * (np.arange(count) % 7)
        if not (np.array_equal(sums, expected) and np.array_equal(mine, expected)):
            print(f"rank {ry.rank}: the sum of {count} float64 is wrong", file=sys.stderr)
            wrong = 1
        elif ry.rank == 0:
            print(f"allreduce of {count:8d} float64 over {ry.size} ranks: right")
    largest = np.array([ry.rank * 10 + 1], dtype=np.int64)
    ry.allreduce(None, largest, MAX)
    if largest[0] != (ry.size - 1) * 10 + 1:
        print(f"rank {ry.rank}: the max is {largest[0]}", file=sys.stderr)
        wrong = 1
    verdict = np.array([wrong], dtype=np.int64)
    ry.allreduce(None, verdict, MAX)
    ry.close()
    return int(verdict[0])


if __name__ == "__main__":
    sys.exit(main())
