"""torch's env:// variables from the launcher that started this process.

torch.distributed's env:// rendezvous reads RANK, WORLD_SIZE, MASTER_ADDR and
MASTER_PORT, which torchrun sets and mpirun, srun, mpiexec and railyard-run
do not. `defaults` works out the ones it can from the launcher's own
variables (railyard/common/launch_identity.h reads them, in the same order
as every railyard program); `fill` sets those not already set, so a value
the user or torchrun gives always wins.
"""

import re
import zlib

# torchrun's default port, for a launcher that names no job.
DEFAULT_PORT = 29500
# Ports derived from a job's name fall in [PORT_BASE, PORT_BASE + PORT_SPAN):
# two jobs on one node then rarely pick the same one.
PORT_BASE = 20000
PORT_SPAN = 20000


def first_host(nodelist):
    """The first host of a Slurm node list: "node[03-05,9],gpu1" -> "node03"."""
    first = re.match(r"(?:[^,\[]|\[[^\]]*\])+", nodelist.strip())
    if first is None:
        return None
    # Every bracket picks its first number: "r[2-3]n[07,9]" -> "r2n07".
    return re.sub(r"\[([^\]\-,]*)[^\]]*\]", r"\1", first.group(0)) or None


def _root_address(root):
    """host and port of RAILYARD_ROOT (tcp://host:port), or None."""
    match = re.fullmatch(r"tcp://\[?([^\]]+?)\]?:(\d+)", root or "")
    return (match.group(1), match.group(2)) if match else None


def _job_name(environ):
    """Text naming this job the same on every rank, or None."""
    for variable in ("PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_KVSNAME"):
        if environ.get(variable):
            return environ[variable]
    if environ.get("SLURM_JOB_ID"):
        step = environ.get("SLURM_STEP_ID", environ.get("SLURM_STEPID", ""))
        return f"slurm-{environ['SLURM_JOB_ID']}.{step}"
    return None


def defaults(identity, environ):
    """The env:// variables the launcher's identity gives, as {name: text}.

    identity: launch_identity()'s dict (launcher, rank, size, local_rank,
    local_size). MASTER_ADDR is left out where no rule gives it (ranks on
    several hosts under mpirun or mpiexec): torch then says it is missing.
    """
    if identity.get("rank") is None or identity.get("size") is None:
        return {}
    out = {"RANK": str(identity["rank"]), "WORLD_SIZE": str(identity["size"])}
    if identity.get("local_rank") is not None:
        out["LOCAL_RANK"] = str(identity["local_rank"])
    if identity.get("local_size") is not None:
        out["LOCAL_WORLD_SIZE"] = str(identity["local_size"])

    root = _root_address(environ.get("RAILYARD_ROOT"))
    # An srun step's nodes, task 0 on the first (srun --mpi=pmi2 ranks may
    # read as Hydra's: same rule). mpirun's ranks inherit its daemons' step.
    nodelist = environ.get("SLURM_STEP_NODELIST")
    in_srun_step = nodelist and identity.get("launcher") != "Open MPI"
    if identity.get("launcher") == "railyard" and root is not None:
        # railyard-run's root address is rank 0's, and nothing else listens
        # on its port when torch's store does the rendezvous.
        out["MASTER_ADDR"], out["MASTER_PORT"] = root
        return out
    if identity.get("local_size") == identity["size"]:
        out["MASTER_ADDR"] = "127.0.0.1"  # every rank on this host
    elif in_srun_step and first_host(nodelist):
        out["MASTER_ADDR"] = first_host(nodelist)
    job = _job_name(environ)
    out["MASTER_PORT"] = str(PORT_BASE + zlib.crc32(job.encode()) % PORT_SPAN
                             if job is not None else DEFAULT_PORT)
    return out


def fill(identity, environ):
    """Sets in environ the defaults it does not already hold; returns them.

    Nothing is filled when RANK and WORLD_SIZE are both set already (torchrun,
    or ranks started by hand): the launcher's variables then do not speak.
    """
    if "RANK" in environ and "WORLD_SIZE" in environ:
        return {}
    filled = {}
    for name, value in defaults(identity, environ).items():
        if name not in environ:
            environ[name] = value
            filled[name] = value
    return filled
