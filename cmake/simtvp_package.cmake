# simtvp_package.cmake — `cmake --install` and the CMake/pkg-config packages (issue 11,
# docs/platform.md "Using the installed package"). Included by the top-level CMakeLists.txt after
# every folder, so every target exists.
#
# Layout under the prefix (GNUInstallDirs):
#   bin/simtvp                          the command
#   lib/libsimtvp-gpu.so.0              simtvp::gpu       the GPU module (tlm/gpu), SONAME .so.0
#   lib/libsimtvp-driver.so.0           simtvp::driver    the register-level driver (sw/driver)
#   lib/libsimtvp.so.0                  simtvp::platform  the whole platform (platform/host)
#   lib/simtvp/libcudart.so.13, libcuda.so.1
#                                       the CUDA runtime and driver API, in a folder of their own so
#                                       that a system prefix never shadows NVIDIA's libraries;
#                                       `simtvp` puts it on the program's LD_LIBRARY_PATH
#   lib/cmake/simtvp/                   simtvpConfig.cmake, simtvpConfigVersion.cmake, targets
#   lib/pkgconfig/simtvp.pc, simtvp-platform.pc
#   include/simtvp/                     the public headers (the list below, and only those)
#   share/simtvp/configs/               the GPU configurations (config_dir() finds them from the
#                                       installed libraries' own location)
#   libexec/simtvp/sgemm                the sample `simtvp` runs when given no program
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SIMTVP_INSTALL_CONFIGDIR ${CMAKE_INSTALL_DATADIR}/simtvp/configs)
set(SIMTVP_INSTALL_RUNTIMEDIR ${CMAKE_INSTALL_LIBDIR}/simtvp)
set(SIMTVP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/simtvp)

# The public headers: what an integrator includes, and nothing that exposes a model core. Each
# includes only the others of this list (docs/platform.md lists what each is for).
set(SIMTVP_PUBLIC_HEADERS
  ${PROJECT_SOURCE_DIR}/tlm/gpu/gpu_top.h            # simtvp::gpu_top, the GPU module
  ${PROJECT_SOURCE_DIR}/tlm/common/tlm_checker.h     # the TLM-2.0 base-protocol checker
  ${PROJECT_SOURCE_DIR}/sw/driver/driver.h           # the register-level driver
  ${PROJECT_SOURCE_DIR}/models/gpuctl/gpu_abi.h      # registers, rings, packets (docs/gpu-abi.md)
  ${PROJECT_SOURCE_DIR}/platform/host/simtvp_host.h  # the platform behind libcudart/libcuda
  ${PROJECT_SOURCE_DIR}/models/stats/stats.h         # the statistics sink
  ${PROJECT_SOURCE_DIR}/models/common/simtvp_diag.h  # statuses and diagnostics
  ${PROJECT_BINARY_DIR}/include/simtvp_version.h)    # SIMTVP_VERSION_*

install(TARGETS simtvp_gpu simtvp_driver_shared simtvp_host EXPORT simtvpTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS simtvp_cudart simtvp_cuda LIBRARY DESTINATION ${SIMTVP_INSTALL_RUNTIMEDIR} NAMELINK_SKIP)
install(TARGETS simtvp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${SIMTVP_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/simtvp)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${SIMTVP_INSTALL_CONFIGDIR}
        FILES_MATCHING PATTERN "*.config" PATTERN "*.icnt" PATTERN "README.md")
install(PROGRAMS ${SIMTVP_DEFAULT_APP} DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/simtvp)

install(EXPORT simtvpTargets NAMESPACE simtvp:: DESTINATION ${SIMTVP_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/simtvpConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/simtvpConfig.cmake
  INSTALL_DESTINATION ${SIMTVP_INSTALL_CMAKEDIR}
  PATH_VARS SIMTVP_INSTALL_CONFIGDIR SIMTVP_INSTALL_RUNTIMEDIR CMAKE_INSTALL_BINDIR)
# 0.x: a minor version may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/simtvpConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/simtvpConfig.cmake ${PROJECT_BINARY_DIR}/cmake/simtvpConfigVersion.cmake
        DESTINATION ${SIMTVP_INSTALL_CMAKEDIR})

# pkg-config files, relocatable (prefix from the file's own place).
file(RELATIVE_PATH SIMTVP_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" SIMTVP_PC_TO_PREFIX "${SIMTVP_PC_TO_PREFIX}")
foreach(pc simtvp simtvp-platform)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
