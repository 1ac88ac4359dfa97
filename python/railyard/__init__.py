"""railyard: multi-rail communication for HPC jobs, from Python.

    railyard.capi    the C API (railyard.h) through ctypes: communicators and
                     their collectives on numpy arrays
    railyard.torch   the torch.distributed backend "railyard": import it, then
                     torch.distributed.init_process_group("railyard")

Neither submodule is imported here: railyard.torch imports torch, which a
program using only the C API does not need.
"""

from railyard._build import VERSION as __version__

__all__ = ["__version__"]
