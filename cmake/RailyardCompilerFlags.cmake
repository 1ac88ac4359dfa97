# Warnings are errors everywhere we compile our own code.
function(railyard_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wformat=2 -Werror)
endfunction()

# Sanitizers apply to every target of the build (library, tests, examples), so
# they are set directory-wide before any target is created.
if(RAILYARD_SANITIZE)
  string(REPLACE "," ";" _railyard_sanitizers "${RAILYARD_SANITIZE}")
  foreach(s IN LISTS _railyard_sanitizers)
    if(NOT s MATCHES "^(address|undefined|leak|thread)$")
      message(FATAL_ERROR "RAILYARD_SANITIZE='${RAILYARD_SANITIZE}': unknown sanitizer '${s}' "
                          "(expected a comma list of address, undefined, leak, thread)")
    endif()
  endforeach()
  add_compile_options(-fsanitize=${RAILYARD_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${RAILYARD_SANITIZE})
  # clang 14's function-type check (part of `undefined`) puts data before
  # each function, which its coroutine lowering cannot place: the
  # collectives' coroutines fail to assemble ("Cannot represent a difference
  # across sections"). Every other check of `undefined` stays on.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND "undefined" IN_LIST _railyard_sanitizers)
    add_compile_options(-fno-sanitize=function)
  endif()
  # GCC 12's -Wmaybe-uninitialized misreads the instrumentation ThreadSanitizer
  # adds around std::optional (a vector or time point in one that is only read
  # when set is reported as maybe uninitialised): the other builds keep the
  # warning.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND "thread" IN_LIST _railyard_sanitizers)
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()
