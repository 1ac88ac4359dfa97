# Every dependency is found through its own CMake package or pkg-config file.
# A missing one stops configuration with the Debian package that provides it;
# scripts/install-deps.sh installs them all.

find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  message(FATAL_ERROR "railyard needs pkg-config: install the Debian package 'pkg-config' "
                      "(or run scripts/install-deps.sh)")
endif()

# railyard_require_pkg(<imported name> <pkg-config module> <Debian package>)
function(railyard_require_pkg name module debian)
  pkg_check_modules(${name} QUIET IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "railyard needs ${module} (pkg-config module '${module}' not found): "
                        "install the Debian package '${debian}' (or run scripts/install-deps.sh)")
  endif()
  message(STATUS "railyard: ${module} ${${name}_VERSION}")
endfunction()

# railyard_require_package(<CMake package> <Debian package> [find_package args...])
macro(railyard_require_package package debian)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR "railyard needs the CMake package '${package}': install the Debian "
                        "package '${debian}' (or run scripts/install-deps.sh)")
  endif()
  message(STATUS "railyard: ${package} ${${package}_VERSION}")
endmacro()

railyard_require_pkg(libfabric libfabric libfabric-dev)
railyard_require_pkg(hwloc hwloc libhwloc-dev)
railyard_require_pkg(pmix pmix libpmix-dev)
railyard_require_package(fmt libfmt-dev)
railyard_require_package(spdlog libspdlog-dev)

if(RAILYARD_BUILD_TOOLS OR RAILYARD_BUILD_TESTS)
  railyard_require_package(CLI11 libcli11-dev)
  railyard_require_package(nlohmann_json nlohmann-json3-dev)
endif()
if(RAILYARD_BUILD_TESTS)
  railyard_require_package(GTest libgtest-dev)
endif()
