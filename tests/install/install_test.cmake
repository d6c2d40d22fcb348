# install_test.cmake — run by ctest (tests/install/CMakeLists.txt): cmake -DBUILD_DIR=… -DSOURCE_DIR=…
# -DWORK_DIR=… -DCXX_COMPILER=… -DPUBLIC_HEADERS=a.h,b.h -P install_test.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" PUBLIC_HEADERS "${PUBLIC_HEADERS}")
set(prefix ${WORK_DIR}/prefix)

function(run what)
  cmake_parse_arguments(A "PROGRAM" "WORKING_DIRECTORY;EXPECT" "COMMAND" ${ARGN})
  # A program built here against a sanitizer build's libraries is not instrumented itself: the
  # sanitizer runtime is preloaded, without leak checks of the program's own allocations.
  set(preload)
  if(A_PROGRAM AND PRELOAD)
    set(preload "LD_PRELOAD=${PRELOAD}" "ASAN_OPTIONS=detect_leaks=0:handle_segv=0")
  endif()
  if(NOT A_WORKING_DIRECTORY)
    set(A_WORKING_DIRECTORY ${WORK_DIR})
  endif()
  # No simtvp variables from the caller's environment: the package must find everything itself.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=SIMTVP_CONFIG --unset=SIMTVP_CONFIG_DIR
                          --unset=SIMTVP_OPTIONS --unset=LD_LIBRARY_PATH ${preload} ${A_COMMAND}
                  WORKING_DIRECTORY ${A_WORKING_DIRECTORY}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${A_COMMAND}\n${out}\n${err}")
  endif()
  if(A_EXPECT)
    foreach(pattern ${A_EXPECT})
      if(NOT out MATCHES "${pattern}")
        message(FATAL_ERROR "${what}: output lacks \"${pattern}\":\n${out}\n${err}")
      endif()
    endforeach()
  endif()
  message(STATUS "${what}: ok")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# 1. Install.
run("cmake --install" COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# 2. Exactly the public headers, nothing of a model core.
file(GLOB installed RELATIVE ${prefix}/include/simtvp ${prefix}/include/simtvp/*)
list(SORT installed)
set(expected ${PUBLIC_HEADERS})
list(SORT expected)
if(NOT installed STREQUAL expected)
  message(FATAL_ERROR "include/simtvp holds ${installed}, expected ${expected}")
endif()
foreach(f lib/libsimtvp-gpu.so.0 lib/libsimtvp-driver.so.0 lib/libsimtvp.so.0 lib/simtvp/libcudart.so.13
          lib/simtvp/libcuda.so.1 bin/simtvp share/simtvp/configs/default.config lib/cmake/simtvp/simtvpConfig.cmake
          lib/pkgconfig/simtvp.pc)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

# 3. The SoC example against the package alone.
run("configure examples/soc-vp" COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/soc-vp -B ${WORK_DIR}/soc
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release)
run("build examples/soc-vp" COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/soc -j2)
run("soc_vp: default GPU, zero-delay CPU, quantum 10 us" PROGRAM COMMAND ${WORK_DIR}/soc/soc_vp
    EXPECT "PASS vector_add" "PASS sgemm tiled" "PASS TLM-2.0 base protocol" "gpu_tot_sim_cycle = [1-9]"
           "5 passed, 0 failed")
run("soc_vp: QV100 by name, AT cores, quantum 100 us" PROGRAM COMMAND ${WORK_DIR}/soc/soc_vp --config SM7_QV100
    --set -simt_model at --set -gpgpu_n_clusters 4 --quantum-us 100 EXPECT "5 passed, 0 failed")
run("soc_vp: functional GPU, quantum 1 us" PROGRAM COMMAND ${WORK_DIR}/soc/soc_vp --set -simt_model func --quantum-us 1
    EXPECT "5 passed, 0 failed")

# 4. Every public header compiles, every exported library links: the CMake package …
set(check ${WORK_DIR}/headers)
file(MAKE_DIRECTORY ${check})
set(tu "")
foreach(h ${PUBLIC_HEADERS})
  string(APPEND tu "#include <simtvp/${h}>\n")
endforeach()
string(APPEND tu [=[
#include <cstdio>
int sc_main(int, char *[]) { return 0; }
int main() {
  std::printf("%s %s %s %p\n", simtvp::version(), simtvp_host_version(), SIMTVP_VERSION_STRING,
              reinterpret_cast<void *>(&drv_open));
  return 0;
}
]=])
file(WRITE ${check}/check.cc "${tu}")
file(WRITE ${check}/CMakeLists.txt [=[
cmake_minimum_required(VERSION 3.16)
project(simtvp_headers LANGUAGES CXX)
find_package(simtvp REQUIRED)
add_executable(check check.cc)
target_link_libraries(check PRIVATE simtvp::gpu simtvp::driver simtvp::platform)
]=])
run("configure the header check" COMMAND ${CMAKE_COMMAND} -S ${check} -B ${check}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run("build the header check" COMMAND ${CMAKE_COMMAND} --build ${check}/build)
run("run the header check" PROGRAM COMMAND ${check}/build/check EXPECT "^0\\.")

# … and pkg-config.
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/lib/pkgconfig
                          ${PKG_CONFIG} --cflags --libs simtvp simtvp-platform
                  RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config simtvp simtvp-platform: ${err}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run("compile and link with pkg-config's flags" COMMAND ${CXX_COMPILER} -std=c++17 ${check}/check.cc ${flags}
      -o ${check}/check_pc)
  run("run the pkg-config build" PROGRAM COMMAND ${check}/check_pc EXPECT "^0\\.")
endif()

# 5. The installed command finds its configurations, runtime and sample from another folder.
run("installed simtvp runs its bundled sample" COMMAND ${prefix}/bin/simtvp -q --set -simt_model=func
    EXPECT "PASS")
run("installed simtvp finds a configuration by name" COMMAND ${prefix}/bin/simtvp --config SM75_RTX2060 --check)
run("installed simtvp --version" COMMAND ${prefix}/bin/simtvp --version EXPECT "^simtvp [0-9]+\\.[0-9]+\\.[0-9]+")
file(REMOVE_RECURSE ${WORK_DIR})
