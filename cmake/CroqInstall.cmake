# Install rules and the CroqJIT package, so consumers can write
#   find_package(CroqJIT) + target_link_libraries(app CroqJIT::croqjit)
include(CMakePackageConfigHelpers)

install(TARGETS croqjit EXPORT CroqJITTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS croq croq-cache RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/croq DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT CroqJITTargets NAMESPACE CroqJIT::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/CroqJIT)

configure_package_config_file(cmake/CroqJITConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/CroqJITConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/CroqJIT)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/CroqJITConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/CroqJITConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/CroqJITConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/CroqJIT)
