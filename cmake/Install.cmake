# cmake --install BUILD [--prefix P]: perfgate as a tool.
#   bin/perfgate
#   lib/perfgate/        perfgate-meter, libperfgate-memshim.so, libperfgate_count.so
#                        and, with CUDA, libperfgate-cuda.so: found from bin/perfgate
#                        through PG_PKGLIBDIR_FROM_BINDIR (config.h), never in the
#                        build tree
#   include/perfgate/    the plugin API and its neighbours
#   lib/pkgconfig/perfgate.pc          pkg-config --cflags perfgate
#   lib/cmake/perfgate/                find_package(perfgate): perfgate::plugin,
#                                      perfgate::perfgate
#   share/perfgate/pin-workflows.sh    pins the caller workflows to a release
#   share/perfgate/python/             perfgate_count.py: count ranges from Python
# Every path inside the tree is relative (pcfiledir, the package's own
# directory), so the tree works wherever it is copied or restored.
include(CMakePackageConfigHelpers)

install(TARGETS perfgate EXPORT perfgateTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS perfgate-meter RUNTIME DESTINATION ${PG_INSTALL_PKGLIBDIR})
install(TARGETS perfgate-memshim perfgate_count LIBRARY DESTINATION ${PG_INSTALL_PKGLIBDIR})
if(PG_HAS_CUDA)
  install(TARGETS perfgate-cuda LIBRARY DESTINATION ${PG_INSTALL_PKGLIBDIR})
endif()
install(TARGETS perfgate_plugin EXPORT perfgateTargets)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/perfgate DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(PROGRAMS ${CMAKE_SOURCE_DIR}/ci/release/pin-workflows.sh DESTINATION ${CMAKE_INSTALL_DATADIR}/perfgate)
install(FILES ${CMAKE_SOURCE_DIR}/python/perfgate_count.py DESTINATION ${CMAKE_INSTALL_DATADIR}/perfgate/python)
install(FILES ${CMAKE_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# perfgate.pc: the prefix is found from the file's own place (${pcfiledir}).
file(RELATIVE_PATH PG_PC_TO_PREFIX
     ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" PG_PC_TO_PREFIX "${PG_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/perfgate.pc.in ${CMAKE_BINARY_DIR}/perfgate.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/perfgate.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(PG_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/perfgate)
install(EXPORT perfgateTargets NAMESPACE perfgate:: DESTINATION ${PG_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/perfgateConfig.cmake.in
  ${CMAKE_BINARY_DIR}/perfgateConfig.cmake INSTALL_DESTINATION ${PG_CMAKE_DIR})
# The plugin ABI is what a plugin depends on; within a major version it stays.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/perfgateConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/perfgateConfig.cmake ${CMAKE_BINARY_DIR}/perfgateConfigVersion.cmake
        DESTINATION ${PG_CMAKE_DIR})
