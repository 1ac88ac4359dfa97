#!/usr/bin/env bash
# Installs every Debian 12 package railyard needs to build, test and benchmark.
# Idempotent: packages already present are left alone; safe to run repeatedly.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake pkg-config git
  # fabric and topology
  libfabric-dev libfabric-bin libhwloc-dev hwloc-nox libibverbs-dev librdmacm-dev
  # PMIx: how ranks under mpirun or srun find each other
  libpmix-dev
  # MPI (the PMPI shim and the Open MPI baseline benchmarks); Fortran for the
  # shim's Fortran tests
  openmpi-bin libopenmpi-dev gfortran
  # libraries
  libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # plots of railyard-bench results (scripts/plot-busbw.py); the C API's
  # Python example (ctypes and numpy); mpi4py runs the MPI shim under Python
  gnuplot-nox python3 python3-numpy python3-mpi4py
  # the torch.distributed backend (railyard/torch): torch for /usr/bin/python3,
  # its C++ headers and libraries, pybind11, Python's headers
  python3-torch libtorch-dev pybind11-dev python3-dev
  # emulated multi-NIC hosts (ip netns, veth, tc)
  iproute2 procps
  # a one-node Slurm for jobs started by srun (scripts/slurm-local.sh)
  slurm-wlm
  # house style
  clang-format clang-tidy
  # the libFuzzer harnesses (scripts/fuzz.sh): clang and its fuzzer runtime
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo_cmd=()
if ((EUID != 0)); then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Debian starts a daemon as it installs it; Slurm's have no configuration
# here (scripts/slurm-local.sh starts its own), so none is started.
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee /usr/sbin/policy-rc.d >/dev/null
  "${sudo_cmd[@]}" chmod +x /usr/sbin/policy-rc.d
  trap '"${sudo_cmd[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
fi
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
