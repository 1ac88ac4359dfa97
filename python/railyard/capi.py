"""railyard's C API (railyard.h) through ctypes, on numpy arrays.

    from railyard import capi
    with capi.Communicator.world() as comm:     # under railyard-run, mpirun or srun
        comm.allreduce(None, data, capi.SUM)    # in place

The library is librailyard.so: RAILYARD_LIBRARY when set, else the one this
package was built or installed with, else wherever the dynamic loader finds
it. Failures raise RailyardError with railyard's message.
"""

import ctypes
import ctypes.util
import os

import numpy as np

from railyard import _build

# railyard.h's values.
SUCCESS = 0
INT8, INT16, INT32, INT64 = 0, 1, 2, 3
UINT8, UINT16, UINT32, UINT64 = 4, 5, 6, 7
FLOAT16, BFLOAT16, FLOAT32, FLOAT64 = 8, 9, 10, 11
SUM, PROD, MIN, MAX = 0, 1, 2, 3

_TYPES = {
    np.dtype(np.int8): INT8, np.dtype(np.int16): INT16, np.dtype(np.int32): INT32,
    np.dtype(np.int64): INT64, np.dtype(np.uint8): UINT8, np.dtype(np.uint16): UINT16,
    np.dtype(np.uint32): UINT32, np.dtype(np.uint64): UINT64, np.dtype(np.float16): FLOAT16,
    np.dtype(np.float32): FLOAT32, np.dtype(np.float64): FLOAT64,
}


class RailyardError(RuntimeError):
    """A railyard_* call failed; the message is railyard's."""


def library_path():
    """Where librailyard.so is looked for, in order."""
    return (os.environ.get("RAILYARD_LIBRARY") or
            (_build.LIBRARY if os.path.exists(_build.LIBRARY) else None) or
            ctypes.util.find_library("railyard"))


def _load():
    path = library_path()
    if not path:
        raise RailyardError("librailyard.so not found: set RAILYARD_LIBRARY to its path")
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


class Communicator:
    """A railyard_comm_t: rank, size, allreduce on numpy arrays."""

    def __init__(self, lib, handle):
        self._lib = lib
        self._handle = handle
        rank, size = ctypes.c_int(), ctypes.c_int()
        self._check(lib.railyard_comm_rank(handle, ctypes.byref(rank)), "railyard_comm_rank")
        self._check(lib.railyard_comm_size(handle, ctypes.byref(size)), "railyard_comm_size")
        self.rank, self.size = rank.value, size.value

    @classmethod
    def world(cls):
        """The job's world, from the environment the launcher set."""
        lib = _load()
        handle = ctypes.c_void_p()
        status = lib.railyard_comm_init(ctypes.byref(handle))
        if status != SUCCESS:
            raise RailyardError(f"railyard_comm_init: {lib.railyard_strerror(status).decode()} "
                                f"({lib.railyard_last_error().decode()})")
        return cls(lib, handle)

    def _check(self, status, what):
        if status != SUCCESS:
            raise RailyardError(f"{what}: {self._lib.railyard_strerror(status).decode()} "
                                f"({self._lib.railyard_last_error().decode()})")

    def allreduce(self, send, recv, op):
        """recv = op over every rank's send; send None: in place at recv."""
        if recv.dtype not in _TYPES or not recv.flags["C_CONTIGUOUS"]:
            raise TypeError(f"allreduce takes contiguous numeric arrays, not {recv.dtype}")
        if send is not None and (send.dtype != recv.dtype or send.size != recv.size or
                                 not send.flags["C_CONTIGUOUS"]):
            raise TypeError("allreduce: send must be a contiguous array like recv")
        source = self._lib.railyard_in_place() if send is None else send.ctypes.data
        self._check(self._lib.railyard_allreduce(source, recv.ctypes.data, recv.size,
                                                 _TYPES[recv.dtype], op, self._handle),
                    "railyard_allreduce")

    def close(self):
        if self._handle:
            handle, self._handle = self._handle, None
            self._check(self._lib.railyard_comm_destroy(handle), "railyard_comm_destroy")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
