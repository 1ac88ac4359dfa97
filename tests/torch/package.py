#!/usr/bin/env python3
"""The railyard package as a user imports it: version, backend, C API.

    package.py VERSION

Checks railyard.__version__ is VERSION, railyard.torch registers the
backend and says it is available, importing it twice is harmless,
railyard.capi loads librailyard, and the env:// variables worked out from
each launcher's (Slurm's and Hydra's here, on environments written out;
init_methods.py runs under mpirun and railyard-run). Exit 0 when all hold.
"""

import importlib
import sys

import torch.distributed as dist

import railyard
import railyard.capi
import railyard.torch
from railyard import _torch_env


def launcher_checks():
    assert _torch_env.first_host("node[03-05,9],gpu1") == "node03"
    assert _torch_env.first_host("r[2-3]n[07,9]") == "r2n07"
    assert _torch_env.first_host("login1") == "login1"
    assert _torch_env.first_host("a1,b[1-2]") == "a1"

    slurm = {"launcher": "Slurm", "rank": 5, "size": 8, "local_rank": 1, "local_size": 4}
    environ = {"SLURM_JOB_ID": "4242", "SLURM_STEP_ID": "0", "SLURM_STEP_NODELIST": "cn[17-18]"}
    got = _torch_env.defaults(slurm, environ)
    assert got["RANK"] == "5" and got["WORLD_SIZE"] == "8", got
    assert got["LOCAL_RANK"] == "1" and got["LOCAL_WORLD_SIZE"] == "4", got
    assert got["MASTER_ADDR"] == "cn17", got
    port = int(got["MASTER_PORT"])
    assert _torch_env.PORT_BASE <= port < _torch_env.PORT_BASE + _torch_env.PORT_SPAN, port
    # Every rank of the job the same port; the next step another.
    assert _torch_env.defaults(dict(slurm, rank=0), environ)["MASTER_PORT"] == str(port)
    assert _torch_env.defaults(slurm, dict(environ, SLURM_STEP_ID="1"))["MASTER_PORT"] != str(port)

    # Hydra on two hosts: no rule gives rank 0's host, so torch names it.
    hydra = {"launcher": "MPICH/Hydra", "rank": 2, "size": 4, "local_rank": 0, "local_size": 2}
    got = _torch_env.defaults(hydra, {"PMI_KVSNAME": "kvs_77_0"})
    assert "MASTER_ADDR" not in got and got["RANK"] == "2", got
    # srun --mpi=pmi2's ranks may read as Hydra's: the step's first node still.
    got = _torch_env.defaults(hydra, {"SLURM_STEP_NODELIST": "cn[17-18]", "SLURM_JOB_ID": "9"})
    assert got["MASTER_ADDR"] == "cn17", got
    # One host: loopback.
    got = _torch_env.defaults(dict(hydra, local_size=4), {})
    assert got["MASTER_ADDR"] == "127.0.0.1" and got["MASTER_PORT"] == "29500", got
    # railyard-run: rank 0's root address and port.
    own = {"launcher": "railyard", "rank": 0, "size": 2, "local_rank": 0, "local_size": 2}
    got = _torch_env.defaults(own, {"RAILYARD_ROOT": "tcp://127.0.0.1:41234"})
    assert (got["MASTER_ADDR"], got["MASTER_PORT"]) == ("127.0.0.1", "41234"), got
    # No launcher: nothing.
    assert _torch_env.defaults({"launcher": "", "rank": None, "size": None}, {}) == {}
    # What is set wins, and nothing is filled once RANK and WORLD_SIZE are set.
    environ = {"MASTER_PORT": "1234"}
    filled = _torch_env.fill(dict(hydra, local_size=4), environ)
    assert environ["MASTER_PORT"] == "1234" and "MASTER_PORT" not in filled, filled
    assert environ["RANK"] == "2"
    assert _torch_env.fill(hydra, {"RANK": "0", "WORLD_SIZE": "1"}) == {}


def main():
    want = sys.argv[1]
    assert railyard.__version__ == want, (railyard.__version__, want)
    assert railyard.torch.__version__ == want
    assert railyard.torch.is_available(), railyard.torch.import_error()
    assert dist.Backend("railyard") == "railyard"
    assert "RAILYARD" in dist.Backend._plugins
    importlib.reload(railyard.torch)  # a second registration must not assert
    launcher_checks()
    lib = railyard.capi._load()
    assert lib.railyard_strerror(0)
    print(f"package: railyard {railyard.__version__}, backend registered, "
          f"library {railyard.capi.library_path()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
