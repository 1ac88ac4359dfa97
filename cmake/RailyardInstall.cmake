# Installs the library, a CMake package (find_package(railyard)) and a
# pkg-config file (pkg-config railyard).
include(CMakePackageConfigHelpers)

install(TARGETS railyard EXPORT railyardTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

set(RAILYARD_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/railyard")
install(EXPORT railyardTargets
  NAMESPACE railyard::
  DESTINATION "${RAILYARD_CMAKE_DIR}"
  COMPONENT devel)

configure_package_config_file(cmake/railyardConfig.cmake.in
  "${PROJECT_BINARY_DIR}/railyardConfig.cmake"
  INSTALL_DESTINATION "${RAILYARD_CMAKE_DIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/railyardConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/railyardConfig.cmake"
              "${PROJECT_BINARY_DIR}/railyardConfigVersion.cmake"
  DESTINATION "${RAILYARD_CMAKE_DIR}"
  COMPONENT devel)

# The .pc file finds its prefix relative to itself, so the installed tree can
# be moved (or installed with cmake --install --prefix) and still work.
file(RELATIVE_PATH RAILYARD_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" RAILYARD_PC_TO_PREFIX "${RAILYARD_PC_TO_PREFIX}")
configure_file(cmake/railyard.pc.in "${PROJECT_BINARY_DIR}/railyard.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/railyard.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
  COMPONENT devel)
