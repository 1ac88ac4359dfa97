# railyard_install_headers(<layer> <header>...): installs public headers under
# include/railyard/<layer>/, the same path sources use to include them.
# Internal headers live in detail/ folders and are never listed here;
# tests/consumer/run.sh checks that every other header is installed.
function(railyard_install_headers layer)
  cmake_parse_arguments(ARG "" "SUBDIR" "" ${ARGN})
  set(dest "${CMAKE_INSTALL_INCLUDEDIR}/railyard/${layer}")
  if(ARG_SUBDIR)
    string(APPEND dest "/${ARG_SUBDIR}")
  endif()
  install(FILES ${ARG_UNPARSED_ARGUMENTS} DESTINATION "${dest}" COMPONENT devel)
endfunction()
