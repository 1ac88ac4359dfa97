#!/usr/bin/env python3
"""The railyard package as a user imports it: version, backend, C API.

    package.py VERSION

Checks railyard.__version__ is VERSION, railyard.torch registers the
backend and says it is available, importing it twice is harmless, and
railyard.capi loads librailyard. Exit 0 when all hold.
"""

import importlib
import sys

import torch.distributed as dist

import railyard
import railyard.capi
import railyard.torch


def main():
    want = sys.argv[1]
    assert railyard.__version__ == want, (railyard.__version__, want)
    assert railyard.torch.__version__ == want
    assert railyard.torch.is_available(), railyard.torch.import_error()
    assert dist.Backend("railyard") == "railyard"
    assert "RAILYARD" in dist.Backend._plugins
    importlib.reload(railyard.torch)  # a second registration must not assert
    lib = railyard.capi._load()
    assert lib.railyard_strerror(0)
    print(f"package: railyard {railyard.__version__}, backend registered, "
          f"library {railyard.capi.library_path()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
