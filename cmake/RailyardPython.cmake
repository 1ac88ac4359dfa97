# The Python the railyard package is built for (python/railyard), and the
# torch it finds there for the torch.distributed backend (railyard/torch).
#
#   RAILYARD_PYTHON              the interpreter: the first of python3 on PATH
#                                and /usr/bin/python3 that imports torch, else
#                                the first python3 (Debian's torch is in
#                                /usr/bin/python3's path, which another
#                                python3 on PATH may not share)
#   RAILYARD_PYTHON_INSTALL_DIR  where cmake --install puts the package:
#                                that Python's site directory when it lies
#                                under the install prefix (Debian:
#                                lib/python3.X/dist-packages), else
#                                lib/python3.X/site-packages under the prefix
#   RAILYARD_TORCH_FOUND         torch, its C++ headers and pybind11 found;
#                                then RAILYARD_TORCH_VERSION,
#                                RAILYARD_TORCH_INCLUDE_DIRS,
#                                RAILYARD_TORCH_LIBRARY_DIRS,
#                                RAILYARD_TORCH_CXX11_ABI (0 or 1),
#                                RAILYARD_PYTHON_INCLUDE_DIR,
#                                RAILYARD_PYTHON_MODULE_SUFFIX

# Runs `code` in `python`; its lines (stdout) into `out` as a list.
function(railyard_python_query python code out ok)
  execute_process(COMMAND "${python}" -c "${code}"
    OUTPUT_VARIABLE lines ERROR_QUIET RESULT_VARIABLE status
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REPLACE "\n" ";" lines "${lines}")
  set(${out} "${lines}" PARENT_SCOPE)
  if(status EQUAL 0)
    set(${ok} TRUE PARENT_SCOPE)
  else()
    set(${ok} FALSE PARENT_SCOPE)
  endif()
endfunction()

set(RAILYARD_PYTHON "" CACHE FILEPATH
  "The Python the railyard package and its torch backend are built for")
if(NOT RAILYARD_PYTHON)
  find_program(railyard_path_python3 NAMES python3 NO_CACHE)
  set(railyard_candidates ${railyard_path_python3} /usr/bin/python3)
  foreach(candidate IN LISTS railyard_candidates)
    if(EXISTS "${candidate}")
      railyard_python_query("${candidate}" "import torch" ignored has_torch)
      if(has_torch)
        set(RAILYARD_PYTHON "${candidate}" CACHE FILEPATH "" FORCE)
        break()
      endif()
    endif()
  endforeach()
  if(NOT RAILYARD_PYTHON)
    list(GET railyard_candidates 0 first)
    set(RAILYARD_PYTHON "${first}" CACHE FILEPATH "" FORCE)
  endif()
endif()

railyard_python_query("${RAILYARD_PYTHON}" "
import sysconfig
print(sysconfig.get_path('platlib'))
print(sysconfig.get_path('platlib', 'posix_prefix', vars={'base': '/', 'platbase': '/'}))
print(sysconfig.get_paths()['include'])
print(sysconfig.get_config_var('EXT_SUFFIX'))
" railyard_python_facts railyard_python_ok)
if(NOT railyard_python_ok)
  message(FATAL_ERROR "railyard: ${RAILYARD_PYTHON} does not run: set RAILYARD_PYTHON to a "
                      "Python 3 (Debian: python3)")
endif()
list(GET railyard_python_facts 0 railyard_site)
list(GET railyard_python_facts 1 railyard_prefix_site)
list(GET railyard_python_facts 2 RAILYARD_PYTHON_INCLUDE_DIR)
list(GET railyard_python_facts 3 RAILYARD_PYTHON_MODULE_SUFFIX)
string(REGEX REPLACE "^/" "" railyard_prefix_site "${railyard_prefix_site}")
cmake_path(IS_PREFIX CMAKE_INSTALL_PREFIX "${railyard_site}" NORMALIZE railyard_site_in_prefix)
if(railyard_site_in_prefix)
  file(RELATIVE_PATH railyard_default_site "${CMAKE_INSTALL_PREFIX}" "${railyard_site}")
else()
  set(railyard_default_site "${railyard_prefix_site}")
endif()
set(RAILYARD_PYTHON_INSTALL_DIR "${railyard_default_site}" CACHE STRING
  "Where cmake --install puts the railyard Python package (relative: under the prefix)")

railyard_python_query("${RAILYARD_PYTHON}" "
import torch, torch.utils.cpp_extension as extension
print(torch.__version__.split('+')[0])
print(int(torch._C._GLIBCXX_USE_CXX11_ABI))
for path in extension.include_paths():
    print('include=' + path)
for path in extension.library_paths():
    print('library=' + path)
" railyard_torch_facts railyard_torch_ok)
set(RAILYARD_TORCH_FOUND FALSE)
if(railyard_torch_ok)
  list(POP_FRONT railyard_torch_facts RAILYARD_TORCH_VERSION RAILYARD_TORCH_CXX11_ABI)
  set(RAILYARD_TORCH_INCLUDE_DIRS "")
  set(RAILYARD_TORCH_LIBRARY_DIRS "")
  foreach(fact IN LISTS railyard_torch_facts)
    if(fact MATCHES "^include=(.*)")
      list(APPEND RAILYARD_TORCH_INCLUDE_DIRS "${CMAKE_MATCH_1}")
    elseif(fact MATCHES "^library=(.*)")
      list(APPEND RAILYARD_TORCH_LIBRARY_DIRS "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  find_path(RAILYARD_TORCH_C10D_HEADER torch/csrc/distributed/c10d/ProcessGroup.hpp
    HINTS ${RAILYARD_TORCH_INCLUDE_DIRS} NO_CACHE)
  find_path(RAILYARD_PYBIND11_HEADER pybind11/pybind11.h
    HINTS ${RAILYARD_TORCH_INCLUDE_DIRS} ${RAILYARD_PYTHON_INCLUDE_DIR} NO_CACHE)
  if(RAILYARD_TORCH_C10D_HEADER AND RAILYARD_PYBIND11_HEADER
     AND EXISTS "${RAILYARD_PYTHON_INCLUDE_DIR}/Python.h")
    set(RAILYARD_TORCH_FOUND TRUE)
    message(STATUS "railyard: torch ${RAILYARD_TORCH_VERSION} (${RAILYARD_PYTHON})")
  else()
    message(STATUS "railyard: torch in ${RAILYARD_PYTHON} but not its C++ headers, pybind11 or "
                   "Python.h: the torch backend is not built (Debian: libtorch-dev, "
                   "pybind11-dev, python3-dev)")
  endif()
else()
  message(STATUS "railyard: ${RAILYARD_PYTHON} has no torch: the torch backend is not built "
                 "(Debian: python3-torch libtorch-dev pybind11-dev)")
endif()
