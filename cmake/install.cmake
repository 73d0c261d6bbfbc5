# cmake --install: the braid command, the headers, the static libraries and a CMake package, so
# that another project builds against Braid with find_package(Braid) and Braid::braid
# (docs/contributing.md, "Using Braid from C++").
include(CMakePackageConfigHelpers)

install(TARGETS braid_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/braid DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS braid braid_core EXPORT BraidTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(BRAID_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Braid)
install(EXPORT BraidTargets NAMESPACE Braid:: DESTINATION ${BRAID_CMAKE_INSTALL_DIR})

# What the static libraries link, found again where the package is used (BraidConfig.cmake.in).
configure_package_config_file(cmake/BraidConfig.cmake.in ${CMAKE_BINARY_DIR}/BraidConfig.cmake
                              INSTALL_DESTINATION ${BRAID_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/BraidConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/BraidConfig.cmake ${CMAKE_BINARY_DIR}/BraidConfigVersion.cmake
        DESTINATION ${BRAID_CMAKE_INSTALL_DIR})
