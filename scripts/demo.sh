#!/usr/bin/env bash
# Installs the dependencies, builds railyard (Release) and runs the demo: a
# two-process ping-pong and bandwidth run over two loopback rails.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release
cmake --build --preset release --parallel "$(nproc)"
exec ./build/release/examples/railyard-pingpong "$@"
