#!/usr/bin/env bash
# Configures railyard with one dependency hidden and checks that CMake stops
# with a message naming the Debian package that provides it.
# Usage: missing_dependency.sh <source dir> <scratch dir>
set -uo pipefail
source_dir=$1
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch/empty-pkgconfig"
failures=0

expect() {  # <label> <expected text> <cmake args...>
  local label=$1 expected=$2
  shift 2
  local out
  out=$(cmake -S "$source_dir" -B "$scratch/$label" "$@" 2>&1)
  local rc=$?
  if [ $rc -eq 0 ]; then
    echo "FAIL $label: configuration succeeded with the dependency hidden"
    failures=$((failures + 1))
  elif ! grep -qF -- "$expected" <<<"$(tr -s ' \n' ' ' <<<"$out")"; then
    echo "FAIL $label: message lacks '$expected':"
    echo "$out" | tail -n 8
    failures=$((failures + 1))
  else
    echo "ok   $label: $expected"
  fi
}

# CMake-config packages, hidden one at a time.
expect fmt "install the Debian package 'libfmt-dev'" -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON
expect spdlog "install the Debian package 'libspdlog-dev'" -DCMAKE_DISABLE_FIND_PACKAGE_spdlog=ON
expect cli11 "install the Debian package 'libcli11-dev'" -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON
expect json "install the Debian package 'nlohmann-json3-dev'" \
  -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
expect gtest "install the Debian package 'libgtest-dev'" -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
# pkg-config packages: an empty search path hides libfabric, the first checked.
PKG_CONFIG_LIBDIR="$scratch/empty-pkgconfig" expect libfabric \
  "install the Debian package 'libfabric-dev'"

exit $((failures > 0))
