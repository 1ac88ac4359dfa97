"""railyard's torch.distributed backend: every collective striped over every NIC.

    import railyard.torch
    torch.distributed.init_process_group("railyard")

Importing this module registers the backend "railyard" with
torch.distributed; the ranks meet through the store torch gives every
backend (env://, tcp:// or file://), whatever started them. Under mpirun,
srun, mpiexec or railyard-run, importing it also sets the env:// variables
torch needs (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
MASTER_PORT) from the launcher's own, wherever neither RANK nor WORLD_SIZE
is set yet. CPU tensors. docs/pytorch.md says what it supports.
"""

import inspect
import os

import torch.distributed as dist

from railyard import __version__
from railyard import _torch_env

try:
    from railyard import _c10d
    _IMPORT_ERROR = None
except ImportError as error:  # built without torch's headers, or for another torch
    _c10d = None
    _IMPORT_ERROR = error

__all__ = ["is_available", "import_error", "launcher", "__version__", "BACKEND"]

BACKEND = "railyard"


def is_available():
    """Whether the backend is built for this torch and registered."""
    return _c10d is not None


def _create_group(options, group_options=None):
    """torch.distributed's creator (extended API): one process group."""
    if group_options is not None:
        raise ValueError(f"the railyard backend takes no process group options, "
                         f"got {group_options!r}")
    return _c10d.create_group(options.store, options.group_rank, options.group_size,
                              options.timeout, list(options.global_ranks_in_group))


def _register():
    if _c10d is None or BACKEND.upper() in dist.Backend._plugins:
        return
    arguments = {"extended_api": True}
    # torch 2.x dispatches per device; the backend serves the CPU.
    if "devices" in inspect.signature(dist.Backend.register_backend).parameters:
        arguments["devices"] = ["cpu"]
    dist.Backend.register_backend(BACKEND, _create_group, **arguments)


def import_error():
    """Why the backend is not available (None when it is)."""
    return _IMPORT_ERROR


def launcher():
    """The launcher that started this process, as railyard names it ("Open MPI",
    "Slurm", "MPICH/Hydra", "railyard", "PMIx"), or None."""
    if _c10d is None:
        return None
    return _c10d.launch_identity()["launcher"] or None


_register()
if _c10d is not None and not ("RANK" in os.environ and "WORLD_SIZE" in os.environ):
    _torch_env.fill(_c10d.launch_identity(), os.environ)
