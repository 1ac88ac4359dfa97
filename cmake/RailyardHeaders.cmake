# railyard_install_headers(<layer> <header>...): installs public headers under
# include/railyard/<layer>/, the same path sources use to include them. The
# public surface is what a program uses: the Communicator and its
# collectives, the C API and the MPI shim's header, the multi-rail endpoint
# and the rail, with every header they include. Every other header is
# internal and not installed; tests/consumer/run.sh checks that the
# installed headers include only each other and compile on their own.
function(railyard_install_headers layer)
  install(FILES ${ARGN} DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/railyard/${layer}"
          COMPONENT devel)
endfunction()
