# railyard_install_headers(<layer> <header>...): installs public headers under
# include/railyard/<layer>/, the same path sources use to include them.
# Headers not listed here are internal to the library.
function(railyard_install_headers layer)
  cmake_parse_arguments(ARG "" "SUBDIR" "" ${ARGN})
  set(dest "${CMAKE_INSTALL_INCLUDEDIR}/railyard/${layer}")
  if(ARG_SUBDIR)
    string(APPEND dest "/${ARG_SUBDIR}")
  endif()
  install(FILES ${ARG_UNPARSED_ARGUMENTS} DESTINATION "${dest}" COMPONENT devel)
endfunction()
