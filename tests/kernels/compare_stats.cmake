# compare_stats.cmake — runs the static-runtime and the shared-runtime build of one program under
# simtvp (default configuration, quiet) and requires byte-identical statistics (stats.json): the
# static runtime must drive the simulated GPU exactly as simtvp's libcudart.so.13 does.
#   cmake -DSIMTVP=<build/bin/simtvp> -DSTATIC=<bin_static/x> -DSHARED=<bin/x> -DOUT=<dir> -P compare_stats.cmake
foreach(var SIMTVP STATIC SHARED OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "compare_stats.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${OUT})
set(ENV{SIMTVP_QUIET} 1)
unset(ENV{SIMTVP_CONFIG})
foreach(build static shared)
  string(TOUPPER ${build} var)
  set(ENV{SIMTVP_OUTDIR} ${OUT}/${build})
  execute_process(COMMAND ${SIMTVP} ${${var}} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${build} build ${${var}} exited with ${rc}:\n${out}${err}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/static/stats.json ${OUT}/shared/stats.json
                RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "the statistics of ${STATIC} and ${SHARED} differ: compare ${OUT}/static/stats.json "
                      "with ${OUT}/shared/stats.json")
endif()
message(STATUS "static and shared builds: identical statistics")
