# The libFuzzer build (RAILYARD_FUZZ, the `fuzz` preset): every target is
# compiled with the fuzzer's coverage instrumentation, so that the harnesses
# in fuzz/ see which branches of the library an input reached; each harness
# links libFuzzer's main. clang only: GCC has no libFuzzer.
if(RAILYARD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "RAILYARD_FUZZ=ON needs clang (libFuzzer), but the C++ compiler is "
                        "${CMAKE_CXX_COMPILER_ID}; use the 'fuzz' preset")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
