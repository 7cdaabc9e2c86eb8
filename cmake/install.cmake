# `cmake --install` puts the public headers, libtensorjit, tensorjit-dump and a CMake package config
# under the prefix, so a user writes find_package(tensorjit CONFIG REQUIRED) and links
# tensorjit::tensorjit (which carries cxx_std_20 to the user's target).
# Only the public headers are installed: no LLVM, fmt or IR header reaches a user's build.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tensorjit EXPORT tensorjitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The installed tool finds the installed library next to it, wherever the prefix is moved.
set_target_properties(tensorjit-dump PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
install(TARGETS tensorjit-dump RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY runtime/include/tensorjit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ir/include/tensorjit/dtype.hpp ir/include/tensorjit/error.hpp ir/include/tensorjit/shape.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tensorjit)
install(EXPORT tensorjitTargets NAMESPACE tensorjit::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tensorjit)

configure_package_config_file(cmake/tensorjitConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tensorjitConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tensorjit)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tensorjitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tensorjitConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/tensorjitConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tensorjit)
