#!/usr/bin/env bash
# Installs railyard from a build tree into a scratch prefix, then builds the
# consumer project against it twice, with find_package and with pkg-config,
# and runs both.
# Then imports the installed Python package (and the torch backend, where
# it was built) from the prefix.
# Usage: run.sh <railyard build dir> <scratch dir> <extra compiler/linker flags>
set -euo pipefail
build=$1
scratch=$2
flags=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch"
mkdir -p "$scratch"
prefix="$scratch/prefix"

cmake --install "$build" --prefix "$prefix" >/dev/null

echo "--- installed headers"
# The installed headers are the public surface: they include only each
# other, none is internal (detail/), and each compiles on its own.
installed=$(cd "$prefix/include/railyard" && find . -name '*.h' | sed 's#^\./##' | sort)
if [ -z "$installed" ]; then
  echo "no header was installed under $prefix/include/railyard"
  exit 1
fi
if [ -n "$(find "$prefix/include" -path '*/detail*' -print -quit)" ]; then
  echo "internal headers were installed:"
  find "$prefix/include" -path '*/detail*'
  exit 1
fi
missing=0
for header in $installed; do
  for included in $(sed -n 's#^ *\# *include "railyard/\([^"]*\)".*#\1#p' "$prefix/include/railyard/$header"); do
    if [ ! -f "$prefix/include/railyard/$included" ]; then
      echo "installed header railyard/$header includes railyard/$included, which is not installed"
      missing=1
    fi
  done
done
[ "$missing" -eq 0 ] || exit 1
fabric_cflags=$(pkg-config --cflags libfabric)
# The MPI shim's header includes mpi.h.
mpi_cflags=$(mpicc --showme:compile 2>/dev/null || true)
# One compiler per core: one after the other they took most of a minute.
compile_alone() {
  local header=$1 extra=""
  [[ $header == mpi_shim/* ]] && extra=$mpi_cflags
  # shellcheck disable=SC2086
  echo "#include <railyard/$header>" |
    c++ -std=c++20 -fsyntax-only -x c++ -I"$prefix/include" $fabric_cflags $extra - ||
    { echo "installed header railyard/$header does not compile on its own"; return 1; }
}
export -f compile_alone
export prefix fabric_cflags mpi_cflags
echo "$installed" | xargs -P "$(nproc)" -I{} bash -c 'compile_alone "$1"' _ {} ||
  exit 1
# The C API is C99: it compiles as C, strictly, too.
echo "#include <railyard/c_api/railyard.h>" |
  cc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -x c -I"$prefix/include" - ||
  { echo "installed header railyard/c_api/railyard.h is not C99"; exit 1; }
echo "$(echo "$installed" | wc -l) public headers installed, none internal, including only each other, each self-contained"

echo "--- find_package(railyard)"
cmake -S "$here" -B "$scratch/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$scratch/cmake-build" >/dev/null
"$scratch/cmake-build/consumer"

echo "--- pkg-config railyard"
libdir=$(find "$prefix" -name railyard.pc -printf '%h\n' | head -n 1)
export PKG_CONFIG_PATH="$libdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pkg-config --exists railyard
# shellcheck disable=SC2046,SC2086
c++ $flags "$here/consumer.cc" -o "$scratch/consumer-pc" $(pkg-config --cflags --libs railyard)
LD_LIBRARY_PATH="$(dirname "$libdir")" "$scratch/consumer-pc"

echo "--- the Python package"
package=$(find "$prefix" -path '*/railyard/__init__.py' -printf '%h\n' | head -n 1)
[ -n "$package" ] || { echo "the railyard Python package was not installed"; exit 1; }
python=$(sed -n 's/^RAILYARD_PYTHON:FILEPATH=//p' "$build/CMakeCache.txt")
PYTHONPATH=$(dirname "$package") "${python:-python3}" - "$prefix" <<'PYTHON'
import glob, os, sys
import railyard, railyard.capi
prefix = os.path.realpath(sys.argv[1])
library = railyard.capi.library_path()
assert os.path.realpath(library).startswith(prefix), f"the package loads {library}, not the installed one"
railyard.capi._load()
backend = glob.glob(os.path.join(os.path.dirname(railyard.__file__), "_c10d*.so"))
if backend:
    import railyard.torch
    assert railyard.torch.is_available(), railyard.torch.import_error()
print(f"railyard {railyard.__version__} from {os.path.dirname(railyard.__file__)}: C API binding"
      f"{' and torch backend' if backend else ''} load from the prefix")
PYTHON
